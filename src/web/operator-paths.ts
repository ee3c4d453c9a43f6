/** The paths an operator or a balancer watches the board through: never rate-limited, never shed, so they answer most when the board is busiest. */
export const OPERATOR_PATHS: ReadonlySet<string> = new Set(['/health', '/metrics']);
