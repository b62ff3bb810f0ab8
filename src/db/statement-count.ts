/**
 * Statements sent to the database so far, each counted where it is sent: queries, transactions'
 * BEGINs and COMMITs, and the prepared statements run on SQLite's connection directly. A plain
 * increment, so that counting costs the hot paths nothing measurable; read by `/metrics`.
 */
export interface StatementCount {
  sent: number;
}
