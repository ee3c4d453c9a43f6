/** pino logger factory: JSON lines; secrets never logged. */
import pino, { type Logger } from 'pino';

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'agentboard' },
      redact: { paths: ['*.authorization', '*.adminToken', '*.metricsToken', '*.apiKey', 'config.adminToken', 'config.metricsToken', 'config.voterHashSecret'], censor: '[redacted]' },
    },
    destination,
  );
}
