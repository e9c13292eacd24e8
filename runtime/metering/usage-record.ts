// The usage record (`GET /api/usage`, the portal's usage page): calls and cost units of the billing
// month so far by connector and tool, and where the account stands against its fair-use limit.
import type { FairUseMode } from '../store/store.ts';

export interface UsageRecord {
  readonly usage: {
    readonly from: string;
    readonly to: string;
    readonly totalCalls: number;
    readonly totalCostUnits: number;
    readonly byConnector: Record<
      string,
      {
        calls: number;
        costUnits: number;
        byTool: Record<string, number>;
        /** Calls of the tools deprecated now (spec `deprecated:`); present when there were some. */
        deprecated?: { calls: number; byTool: Record<string, number> };
      }
    >;
    /** Calls of tools deprecated now, over every connector; present when there were some. */
    readonly deprecatedCalls?: number;
  };
  readonly fairUse: {
    readonly withinQuota: boolean;
    readonly used: number;
    readonly limit: number;
    readonly mode: FairUseMode;
    readonly month: string;
  };
}
