/** How much the refused share of new work moves at each sample of the loop's lateness. */
const RISE_PER_SAMPLE = 0.1;
const FALL_PER_SAMPLE = 0.05;

/**
 * How much new work (a checkout session, a direct charge, a payout, a refund) to refuse while the
 * process falls behind, so that what is admitted is about what it can finish. A share that rises
 * while it stays behind (two samples running) and falls back, half as fast, once it keeps up finds
 * the level by itself, whatever one request costs: refusing all new work at a single limit,
 * as the other limits do, measured either too little (payments in flight grew without end at twice
 * the capacity, answers taking 30 s) or everything. Payments already started keep being served.
 */
export class NewWorkShedding {
  /** The share of new work refused, 0 to 1. */
  private refused = 0;
  /** Admissions owed: refusals are spread evenly rather than drawn at random. */
  private credit = 0;
  /** Whether the sample before was behind too: one busy quarter second (a collection, a burst) is not a trend. */
  private behindBefore = false;

  /** A sample of the event loop: whether it was behind (too late, or too busy) over the last while. */
  observe(behind: boolean): void {
    if (behind && this.behindBefore) this.refused = Math.min(1, this.refused + RISE_PER_SAMPLE);
    else if (!behind) this.refused = Math.max(0, this.refused - FALL_PER_SAMPLE);
    this.behindBefore = behind;
  }

  /** Whether the next new request is admitted: all but the refused share are, evenly. */
  admit(): boolean {
    this.credit += 1 - this.refused;
    if (this.credit < 1) return false;
    this.credit -= 1;
    return true;
  }

  refusedShare(): number {
    return this.refused;
  }
}
