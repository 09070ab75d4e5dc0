import pino, { type DestinationStream, type Logger } from "pino";

/**
 * Structured logs. Anything that could carry a secret is redacted by path, so a careless
 * `logger.info({ req })` still cannot print a key, a cookie or a token.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: "switchyard" },
    redact: {
      paths: [
        "headers.authorization",
        "headers.cookie",
        'headers["x-api-key"]',
        "*.headers.authorization",
        "*.headers.cookie",
        '*.headers["x-api-key"]',
        "apiKey",
        "token",
        "password",
        "secret",
        "clientSecret",
        "accessToken",
        "refreshToken",
        "headerValue",
      ],
      censor: "[redacted]",
    },
  };
  // A destination only where logs are read back (tests); stdout otherwise.
  return destination ? pino(options, destination) : pino(options);
}
