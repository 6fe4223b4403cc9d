'use strict';
/** `npm test`'s last line: passed, failed and skipped counts, from Jest's own results (no results file is written).
 * A test file that failed outside its tests (a hook's timeout, a syntax error) is named too: its tests may all have
 * passed, yet the run failed. On stderr, where Jest's own reporters write, so it comes after their summary. */
class SummaryReporter {
  onRunComplete(_contexts, r) {
    const broken = r.testResults.filter((file) => file.testExecError || (file.failureMessage && file.numFailingTests === 0)).length;
    const files = broken === 0 ? '' : broken === 1 ? ', 1 test file failed outside its tests' : `, ${broken} test files failed outside their tests`;
    process.stderr.write(`\n${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped${files}\n`);
  }
}
module.exports = SummaryReporter;
