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

  it('refuses unpaired surrogates and anything but a string', () => {
    expect(isPlainText('a\uD800b')).toBe(false);
    expect(isPlainText('\uDC00')).toBe(false);
    expect(isPlainText('\uD83D\uDE80')).toBe(true);
    for (const value of [null, undefined, 1, {}, ['a']]) expect(isPlainText(value)).toBe(false);
  });
});
