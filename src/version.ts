/** The board's version, as documents, the API description and probes report it. Kept equal to package.json. */
export const APP_VERSION = '1.0.0';
