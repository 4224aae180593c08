import { browserRequired, describeWithBrowser } from '../helpers/browser';

// The browser tests skip on a machine without Chromium, except where they are required: there
// a missing browser must fail the run (CI installs Chromium first, see .ci/run's browser step).
const MISSING = '/nonexistent/chromium-for-this-test';

describe('describeWithBrowser', () => {
  it('when the browser is required (REQUIRE_BROWSER=1) and missing, then the test file fails instead of skipping', () => {
    expect(() => describeWithBrowser('x.test.ts', MISSING, { REQUIRE_BROWSER: '1' })).toThrow(
      /no Chromium at \/nonexistent\/chromium-for-this-test.*required/,
    );
  });

  it('when CI=true and the browser is missing, then it fails too', () => {
    expect(() => describeWithBrowser('x.test.ts', MISSING, { CI: 'true' })).toThrow(/required/);
  });

  it('when nothing requires the browser and it is missing, then the file is skipped with a message', () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(describeWithBrowser('x.test.ts', MISSING, { CI: '' })).toBe(describe.skip);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('skipped'));
    } finally {
      warn.mockRestore();
    }
  });

  it('when the executable exists, then the tests run', () => {
    expect(describeWithBrowser('x.test.ts', process.execPath, { REQUIRE_BROWSER: '1' })).toBe(describe);
  });

  it('when REQUIRE_BROWSER and CI say nothing, then it is not required', () => {
    expect(browserRequired({})).toBe(false);
    expect(browserRequired({ CI: '' , REQUIRE_BROWSER: '' })).toBe(false);
    expect(browserRequired({ REQUIRE_BROWSER: 'true' })).toBe(true);
  });
});
