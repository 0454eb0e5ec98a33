/**
 * SQL with its values named where they are used: `sql\`SELECT … WHERE id = ${id}\`` holds the text with pg's
 * placeholders and the values in order, and a `Sql` placed inside another is spliced with its values. Nothing in
 * this codebase numbers `$N` by hand or rewrites SQL text: a statement two modules contribute to is composed by
 * nesting their `Sql` values (see EventOutbox).
 */
export { default as sql, empty, join, raw, Sql } from 'sql-template-tag';
