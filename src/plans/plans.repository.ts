import { Injectable } from '@nestjs/common';
import { Database, type SqlExecutor } from '../database/database.service.js';
import { selectList } from '../database/select-list.js';
import { empty, join, raw, sql, type Sql } from '../database/sql.js';
import type { Plan } from './plan.js';
import { PlanEntity } from './plan.entity.js';

const LISTED = [
  'id',
  'name',
  'description',
  'periodSeconds',
  'pricePerPeriod',
  'features',
  'trialSeconds',
  'archivedAt',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof PlanEntity)[];
type PlanRow = Pick<PlanEntity, (typeof LISTED)[number]>;

const COLUMNS = raw(selectList(PlanEntity, LISTED));

/** A key for the transaction-scoped advisory lock that serialises plan creation (PLANS_MAX). */
const CREATE_LOCK = sql`hashtext('plans.create')`;

function toPlan(row: PlanRow): Plan {
  return { ...row, pricePerPeriod: BigInt(row.pricePerPeriod) };
}

export interface NewPlan {
  id: string;
  name: string;
  description: string;
  periodSeconds: number;
  pricePerPeriod: bigint;
  features: readonly string[];
  trialSeconds: number | null;
}

export type PlanChanges = Partial<Omit<NewPlan, 'id'>>;

/** What `create` did: the plan, or why not. */
export type Created = { plan: Plan } | { refused: 'exists' | 'limit' };

/** What `update` did, given the stored row under its lock. */
export type Updated = { plan: Plan } | { refused: 'not_found' | 'in_use' };

/** Every statement of the `plans` table. */
@Injectable()
export class PlansRepository {
  constructor(private readonly db: Database) {}

  /** `on`: the caller's transaction, when it holds one (a second connection could wait on a full pool). */
  async find(id: string, on: SqlExecutor = this.db): Promise<Plan | null> {
    const { rows } = await on.run<PlanRow>(sql`SELECT ${COLUMNS} FROM plans WHERE id = ${id}`);
    return rows[0] ? toPlan(rows[0]) : null;
  }

  /**
   * The plan, its row locked FOR SHARE until `tx` ends: a subscription taking it holds this, so an operator's change
   * of price or period (FOR UPDATE, then PlanUsage) waits for it and then sees the subscriber.
   */
  async findForShare(tx: SqlExecutor, id: string): Promise<Plan | null> {
    const { rows } = await tx.run<PlanRow>(sql`SELECT ${COLUMNS} FROM plans WHERE id = ${id} FOR SHARE`);
    return rows[0] ? toPlan(rows[0]) : null;
  }

  /** Oldest first; archived ones only when asked. */
  async list(archived: boolean): Promise<Plan[]> {
    const { rows } = await this.db.run<PlanRow>(
      sql`SELECT ${COLUMNS} FROM plans ${archived ? empty : sql`WHERE archived_at IS NULL`}
        ORDER BY created_at, id`,
    );
    return rows.map(toPlan);
  }

  /**
   * Inserts the plan unless `maxOffered` plans are offered already. Creations take one advisory lock for the count
   * and the insert, so two of them cannot both take the last place.
   */
  async create(plan: NewPlan, maxOffered: number): Promise<Created> {
    return this.db.transaction(async (tx) => {
      await tx.run(sql`SELECT pg_advisory_xact_lock(${CREATE_LOCK})`);
      const { rows: counted } = await tx.run<{ offered: number }>(
        sql`SELECT count(*)::int AS offered FROM plans WHERE archived_at IS NULL`,
      );
      if (counted[0]!.offered >= maxOffered) return { refused: 'limit' };
      const { rows } = await tx.run<PlanRow>(
        sql`INSERT INTO plans (id, name, description, period_seconds, price_per_period, features, trial_seconds)
          VALUES (${plan.id}, ${plan.name}, ${plan.description}, ${plan.periodSeconds},
            ${plan.pricePerPeriod.toString()}::numeric, ${[...plan.features]}::text[], ${plan.trialSeconds})
          ON CONFLICT (id) DO NOTHING
          RETURNING ${COLUMNS}`,
      );
      return rows[0] ? { plan: toPlan(rows[0]) } : { refused: 'exists' };
    });
  }

  /**
   * Applies `changes` under the plan's row lock. A change of price or period (to a different value) first asks
   * `inUse` in the same transaction: a plan with subscribers keeps its terms.
   */
  async update(
    id: string,
    changes: PlanChanges,
    inUse: (tx: SqlExecutor, id: string) => Promise<boolean>,
  ): Promise<Updated> {
    return this.db.transaction(async (tx) => {
      const { rows: locked } = await tx.run<PlanRow>(
        sql`SELECT ${COLUMNS} FROM plans WHERE id = ${id} FOR UPDATE`,
      );
      const current = locked[0] ? toPlan(locked[0]) : undefined;
      if (!current) return { refused: 'not_found' };
      const termsChange =
        (changes.periodSeconds !== undefined && changes.periodSeconds !== current.periodSeconds) ||
        (changes.pricePerPeriod !== undefined && changes.pricePerPeriod !== current.pricePerPeriod);
      if (termsChange && (await inUse(tx, id))) return { refused: 'in_use' };
      const { rows } = await tx.run<PlanRow>(
        sql`UPDATE plans SET ${join(assignments(changes), ', ')} WHERE id = ${id} RETURNING ${COLUMNS}`,
      );
      return { plan: toPlan(rows[0]!) };
    });
  }

  /** Archives the plan (once: a second call keeps the first time); null when there is none. */
  async archive(id: string): Promise<Plan | null> {
    const { rows } = await this.db.run<PlanRow>(
      sql`UPDATE plans SET archived_at = coalesce(archived_at, now()),
          updated_at = CASE WHEN archived_at IS NULL THEN now() ELSE updated_at END
        WHERE id = ${id} RETURNING ${COLUMNS}`,
    );
    return rows[0] ? toPlan(rows[0]) : null;
  }
}

/** The SET list of an update: each given field, and the update time. */
function assignments(changes: PlanChanges): Sql[] {
  const set: Sql[] = [sql`updated_at = now()`];
  if (changes.name !== undefined) set.push(sql`name = ${changes.name}`);
  if (changes.description !== undefined) set.push(sql`description = ${changes.description}`);
  if (changes.periodSeconds !== undefined) set.push(sql`period_seconds = ${changes.periodSeconds}`);
  if (changes.pricePerPeriod !== undefined) {
    set.push(sql`price_per_period = ${changes.pricePerPeriod.toString()}::numeric`);
  }
  if (changes.features !== undefined) set.push(sql`features = ${[...changes.features]}::text[]`);
  if (changes.trialSeconds !== undefined) set.push(sql`trial_seconds = ${changes.trialSeconds}`);
  return set;
}
