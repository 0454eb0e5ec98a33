import { join, sql } from './sql.js';

describe('sql', () => {
  it('numbers the values of nested statements in the order they stand', () => {
    const followUp = sql`INSERT INTO b (x, y) SELECT ${'x'}, ${2} FROM event`;
    const statement = sql`WITH event AS (INSERT INTO a (id) VALUES (${'id'}) RETURNING id), f1 AS (${followUp}) SELECT FROM event`;
    expect(statement.text).toBe(
      'WITH event AS (INSERT INTO a (id) VALUES ($1) RETURNING id), f1 AS (INSERT INTO b (x, y) SELECT $2, $3 FROM event) SELECT FROM event',
    );
    expect(statement.values).toEqual(['id', 'x', 2]);
  });

  it('joins lists of values', () => {
    const statement = sql`SELECT * FROM t WHERE id IN (${join([1, 2, 3])}) AND a = ${'a'}`;
    expect(statement.text).toBe('SELECT * FROM t WHERE id IN ($1,$2,$3) AND a = $4');
    expect(statement.values).toEqual([1, 2, 3, 'a']);
  });
});
