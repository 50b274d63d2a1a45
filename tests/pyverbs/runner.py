#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run modules of rdma-core's test suite and record every test's outcome.

usage: /usr/bin/python3 runner.py SUITE_DIR MODULE[,MODULE...] OUT.tsv --dev DEV [...]

SUITE_DIR is a gunzipped copy of /usr/share/doc/rdma-core/tests (its parent
holds the package "tests"); MODULE is e.g. test_qp, several in one process
(as the suite's own run_tests.py runs them: under TCG each python started
costs seconds) separated by commas. Options after OUT are the suite's own
(--dev, --port, --gid ...). OUT gets one line per test, written as each
ends (what ran before a crash stays):
"<test id>\t<ok|skip|fail|error>[\t<reason>]". The unittest log goes to
stderr. Exits 0 when nothing failed or errored. RUNNER_ONLY_TESTS=FILE: run
only the tests whose ids FILE lists, one a line.

The suite's own run_tests.py prints only counts; the comparison with rxe
needs the outcome of each test, hence this small runner over the same
unittest machinery.
"""
import importlib
import os
import sys
import unittest


class RecordingResult(unittest.TextTestResult):
    sink = None

    def _note(self, test, outcome, reason=''):
        reason = ' '.join(str(reason).split())[:200]
        self.sink.write(f'{test.id()}\t{outcome}\t{reason}\n')
        self.sink.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self._note(test, 'ok')

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._note(test, 'skip', reason)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._note(test, 'fail', err[1])

    def addError(self, test, err):
        super().addError(test, err)
        self._note(test, 'error', err[1])

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._note(test, 'ok', 'expected failure')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._note(test, 'fail', 'unexpected success')


def flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    suite_dir, modules, out = sys.argv[1:4]
    sys.argv[1:] = sys.argv[4:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(suite_dir)))
    sys.path.insert(0, os.path.abspath(suite_dir))
    from args_parser import parser
    parser.parse_args()
    suite = unittest.TestSuite()
    for module in modules.split(','):
        mod = importlib.import_module('tests.' + module)
        suite.addTests(unittest.defaultTestLoader.loadTestsFromModule(mod))
    only = os.environ.get('RUNNER_ONLY_TESTS')
    if only:
        with open(only) as f:
            wanted = {line.strip() for line in f if line.strip()}
        suite = unittest.TestSuite(t for t in flatten(suite)
                                   if t.id() in wanted)
    with open(out, 'w') as sink:
        RecordingResult.sink = sink
        runner = unittest.TextTestRunner(verbosity=2,
                                         resultclass=RecordingResult)
        result = runner.run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == '__main__':
    main()
