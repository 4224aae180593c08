import { FONT_STACK, h, labelsFor, renderSvg, SHARE_LANGS } from '../../src/modules/share-images';

/** The path data satori draws for `text` alone (glyphs become one path per text run). */
async function glyphs(text: string): Promise<string> {
  const svg = await renderSvg(h('div', { style: { display: 'flex', fontFamily: FONT_STACK, fontSize: 40 } }, text), 200, 80);
  return [...svg.matchAll(/ d="([^"]+)"/g)].map((m) => m[1]).join('|');
}

describe('share image fonts', () => {
  test('when any label of the four locales, or a Russian, Ukrainian or Spanish title, is drawn then every character has a real glyph', async () => {
    // A private-use code point no font has: its drawing is the fonts' "missing glyph" box.
    const missing = await glyphs('\uE000');
    expect(missing).not.toBe('');
    const texts: string[] = [
      'АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюя',
      'ҐЄІЇґєії’',
      'ÁÉÍÑÓÚÜáéíñóúü¿¡€£₴₽ŁłŚśŻżČčŠšŽž',
    ];
    for (const lang of SHARE_LANGS) {
      const l = labelsFor(lang);
      texts.push(
        l.raisedOf(l.money(1_234_567_00, 'USD')), l.raisedOf(l.money(500_00, 'EUR')), l.raisedOf(l.money(500_00, 'UAH')), l.raisedOf(l.money(500_00, 'RUB')),
        l.ofGoal(l.percent(49.5)), l.goalReached, l.ended, l.cta, l.storyTagline, l.profileKicker, l.memberSince(2026), l.profileCta,
        ...[0, 1, 2, 5, 21, 182].map((n) => `${l.count(n)} ${l.donorsLabel(n)}`),
      );
    }
    const chars = new Set([...texts.join('')].filter((c) => c.trim() !== ''));
    const lacking: string[] = [];
    for (const c of chars) if ((await glyphs(c)) === missing) lacking.push(c);
    expect(lacking).toEqual([]);
  });
});
