import http from 'node:http';
import express from 'express';
import { addVary } from '../../src/http/caching';

/** A bare Express response (headers only; nothing is sent). */
function response(): express.Response {
  const res = new http.ServerResponse(new http.IncomingMessage(null as never));
  Object.setPrototypeOf(res, express.response);
  return res as unknown as express.Response;
}

// addVary memoises res.vary's merge: the header must be byte for byte what res.vary writes,
// on the first (computed) call and on the memoised ones after it.
describe('addVary', () => {
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'Origin'],
    ['Origin', 'Authorization, Cookie'],
    ['Origin', 'origin'],
    ['Origin, Authorization', 'Cookie'],
    ['*', 'Origin'],
    [undefined, '*'],
  ];
  it.each(cases)('Vary %p + %p matches res.vary, memoised or not', (start, field) => {
    for (let round = 0; round < 3; round += 1) {
      const want = response();
      const got = response();
      if (start !== undefined) {
        want.setHeader('Vary', start);
        got.setHeader('Vary', start);
      }
      want.vary(field);
      addVary(got, field);
      expect(got.getHeader('Vary')).toBe(want.getHeader('Vary'));
    }
  });
});
