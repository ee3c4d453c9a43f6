/** A numbered schema change, as every SQL store records them in schema_migrations. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
