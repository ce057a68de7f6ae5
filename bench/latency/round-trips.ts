// The D1 round trips of one request, on a logical clock (each start and end is one tick), so that
// which ones overlapped is decided by the order of events, not by timer resolution: the same
// answer at 0 ms and at 50 ms per round trip.

interface Trip {
  start: number;
  end: number | undefined;
}

export interface AtReply {
  /** Sequential round trips the reply waited for: the longest chain of ended ones that did not overlap. */
  awaited: number;
  /** Round trips that ended before the reply (overlapping ones each counted). */
  ended: number;
  /** Round trips still under way when the reply was produced (work in waitUntil). */
  pending: number;
}

export function roundTripLog() {
  let clock = 0;
  const trips: Trip[] = [];
  return {
    /** A RoundTripObserver (delayed-d1.ts). */
    observe(): () => void {
      const trip: Trip = { start: clock++, end: undefined };
      trips.push(trip);
      return () => {
        trip.end = clock++;
      };
    },
    /** Read when the reply is produced. */
    atReply(): AtReply {
      const ended = trips.filter((t): t is Trip & { end: number } => t.end !== undefined).sort((a, b) => a.end - b.end);
      // Earliest end first is the longest set of pairwise disjoint intervals (interval scheduling).
      let awaited = 0;
      let last = -1;
      for (const t of ended) {
        if (t.start > last) {
          awaited++;
          last = t.end;
        }
      }
      return { awaited, ended: ended.length, pending: trips.length - ended.length };
    },
    /** Every round trip so far, the reply's and the ones after it. */
    total: () => trips.length,
  };
}
