import { Injectable } from '@nestjs/common';
import type { KeeperCheckDto } from './health.dto.js';

/**
 * What other features add to the health answer for an operator to see, without making the instance unready: the
 * keeper's gas balance (auto-renew registers it at start). Health does not import those features; they register here.
 */
@Injectable()
export class HealthNotes {
  private keeperCheck: (() => Promise<KeeperCheckDto>) | undefined;

  /** The keeper's balance check; at most one per process. */
  registerKeeper(check: () => Promise<KeeperCheckDto>): void {
    this.keeperCheck = check;
  }

  keeper(): Promise<KeeperCheckDto> | undefined {
    return this.keeperCheck?.();
  }
}
