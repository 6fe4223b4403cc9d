'use strict';
/** `npm test`'s last line: passed, failed and skipped counts, from Jest's own results (no results file is written).
 * On stderr, where Jest's own reporters write, so it comes after their summary. */
class SummaryReporter {
  onRunComplete(_contexts, r) {
    process.stderr.write(`\n${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
