/** Ports for time and identity, so tests control both without sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export interface Ids {
  /** A new id that sorts after every id this generator made before. */
  next(): string;
}
