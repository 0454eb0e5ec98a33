import { isPlainText } from './plain-text.js';

describe('isPlainText', () => {
  it('accepts one line of any script, emoji included', () => {
    for (const text of ['', 'billing backend', 'Überweisung – 請求', 'ok 🚀', 'a "quoted" <b>x</b>']) {
      expect(isPlainText(text)).toBe(true);
    }
  });

  it('refuses every C0 and C1 control character, and DEL', () => {
    const controls = [
      ...Array.from({ length: 0x20 }, (_, code) => code),
      0x7f,
      ...Array.from({ length: 0x20 }, (_, index) => 0x80 + index),
    ];
    for (const code of controls) {
      expect({ code, plain: isPlainText(`a${String.fromCharCode(code)}b`) }).toEqual({ code, plain: false });
    }
  });

  it('refuses bidirectional controls and zero-width characters, each alone and inside text', () => {
    const invisible = [
      0x061c,
      ...Array.from({ length: 5 }, (_, index) => 0x200b + index),
      ...Array.from({ length: 5 }, (_, index) => 0x202a + index),
      ...Array.from({ length: 5 }, (_, index) => 0x2060 + index),
      ...Array.from({ length: 4 }, (_, index) => 0x2066 + index),
      0xfeff,
    ];
    for (const code of invisible) {
      const char = String.fromCharCode(code);
      for (const text of [char, `a${char}b`, `billing ${char}dnekcab`]) {
        expect({ code, plain: isPlainText(text) }).toEqual({ code, plain: false });
      }
    }
  });

  it('keeps the zero-width joiner inside emoji sequences only', () => {
    expect(isPlainText('team 👨\u200D👩\u200D👧')).toBe(true);
    expect(isPlainText('cook 👩🏽\u200D🍳')).toBe(true);
    expect(isPlainText('a\u200Db')).toBe(false);
    expect(isPlainText('👨\u200D')).toBe(false);
    expect(isPlainText('\u200D👩')).toBe(false);
  });

  it('refuses unpaired surrogates and anything but a string', () => {
    expect(isPlainText('a\uD800b')).toBe(false);
    expect(isPlainText('\uDC00')).toBe(false);
    expect(isPlainText('\uD83D\uDE80')).toBe(true);
    for (const value of [null, undefined, 1, {}, ['a']]) expect(isPlainText(value)).toBe(false);
  });
});
