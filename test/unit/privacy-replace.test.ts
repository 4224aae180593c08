import { QUOTE_PREFIX, Replacer, usable } from '../../src/modules/privacy/privacy.replace';

const r = new Replacer(
  usable(
    [
      { value: 'Zelda Quux', kind: 'identifier' },
      { value: 'Zelda@Example.test', kind: 'identifier' },
      { value: "O'Brien & sons", kind: 'identifier' },
      { value: `a long comment that a notice quotes cut short ${'x'.repeat(40)} end`, kind: 'text' },
      { value: 'Ann', kind: 'identifier' },
      { value: 'Thanks!', kind: 'text' },
      { value: 'user-id-1', kind: 'identifier' },
    ],
    ['user-id-1'],
  ),
  { identifier: 'a former member', text: '[removed]' },
);

describe('privacy: replacing copies of an erased person', () => {
  it('when a JSON value quotes the person, then only string values change, keys and numbers stay and it stays JSON', () => {
    const v = { donor_name: 'Zelda Quux', amount_cents: 1500, 'Zelda Quux': true, nested: [{ note: 'from Zelda Quux, with love' }] };
    expect(r.json(v)).toEqual({ donor_name: 'a former member', amount_cents: 1500, 'Zelda Quux': true, nested: [{ note: 'from a former member, with love' }] });
    const text = JSON.stringify(v, null, 2);
    expect(JSON.parse(r.text(text))).toEqual(r.json(v));
    // Nothing to replace: the text stays byte for byte.
    expect(r.text('{ "a": 1 }')).toBe('{ "a": 1 }');
  });

  it('when a name is part of a longer word, then it is not the person; an address matches whatever its case', () => {
    expect(r.string('Zelda Quuxton and Zelda Quux')).toBe('Zelda Quuxton and a former member');
    expect(r.string('mail ZELDA@example.TEST now')).toBe('mail a former member now');
    expect(r.string('Annual report by Ann')).toBe('Annual report by a former member');
  });

  it('when a copy quotes a text cut short or HTML-escaped, then the quote as far as it goes is replaced', () => {
    const full = `a long comment that a notice quotes cut short ${'x'.repeat(40)} end`;
    expect(r.string(`said: “${full.slice(0, 60)}…”`)).toBe('said: “[removed]…”');
    expect(r.string(`<strong>O&#39;Brien &amp; sons</strong>`)).toBe('<strong>a former member</strong>');
    expect(QUOTE_PREFIX).toBeLessThan(60);
  });

  it('when a string is too short to identify anyone or is the kept id, then it is left alone', () => {
    expect(r.string('Thanks! user-id-1')).toBe('Thanks! user-id-1');
    expect(r.bytes(Buffer.from([0xff, 0x00, 0x5a]))).toEqual(Buffer.from([0xff, 0x00, 0x5a]));
    expect(r.bytes(Buffer.from('{"name":"Zelda Quux"}')).toString()).toBe('{"name":"a former member"}');
  });
});
