/**
 * Whether the suite runs on CI (the CI environment variable, as CI runners set it), read once
 * for every test: there a test may not skip for want of a part it needs, it fails instead.
 */
export const ON_CI = Boolean(process.env.CI);
