import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mixedScripts, scriptsOf } from '../../src/validation/mixed-scripts.ts';
import { unicodeScripts } from '../../src/validation/unicode-scripts.ts';

describe('Mixed scripts within a label (UTS #39 "Highly Restrictive")', () => {
  const accepted: [string, string][] = [
    ['plain Latin', 'paypal'],
    ['Latin with Common digits and punctuation', 'ab-12_x+y'],
    ['Latin with an Inherited combining accent', 'jose\u0301'],
    ['Cyrillic alone', 'иван'],
    ['Greek alone', 'ελληνικά'],
    ['Arabic alone', 'مثال'],
    ['Arabic with an Arabic-Indic digit', 'ک\u0660'],
    ['Japanese: Han, Hiragana and Katakana together', '東京とうきょうトウキョウ'],
    ['Latin with Japanese', 'tanaka田中たなかタナカ'],
    ['Latin with Han and Bopomofo', 'abc注音ㄅㄆ'],
    ['Latin with Han and Hangul', 'kim김金'],
    ['the prolonged sound mark (Hiragana and Katakana) with either', 'ーか'],
    ["a whole-script look-alike (all Cyrillic): out of this rule's reach", 'аррӏе'],
    ['no letters at all', '12345'],
    ['empty', ''],
  ];
  for (const [name, label] of accepted) {
    it(`accepts ${name}`, () => assert.equal(mixedScripts(label), undefined));
  }

  const refused: [string, string, string[]][] = [
    ['Latin "paypal" with a Cyrillic "а"', 'p\u0430ypal', ['Cyrillic', 'Latin']],
    ['a Greek omega before Latin', 'Ωmega', ['Greek', 'Latin']],
    ['Latin with an Arabic-Indic digit', 'abc\u0660', ['Arabic', 'Latin', 'Thaana', 'Yezidi']],
    ['Katakana with Hangul (two CJK systems)', 'カ한', ['Hangul', 'Katakana']],
    ['Hangul with Bopomofo', '한ㄅ', ['Bopomofo', 'Hangul']],
    ['Latin, Han and Cyrillic', 'a漢б', ['Cyrillic', 'Han', 'Latin']],
  ];
  for (const [name, label, scripts] of refused) {
    it(`refuses ${name}, naming the scripts`, () => assert.deepEqual(mixedScripts(label), scripts));
  }

  it('uses Script_Extensions, not Script: marks and punctuation count for the scripts that use them', () => {
    // U+064B ARABIC FATHATAN has Script Inherited but is used by Arabic and Syriac only.
    assert.deepEqual(mixedScripts('a\u064b'), ['Arabic', 'Latin', 'Syriac']);
    assert.equal(mixedScripts('\u0628\u064b'), undefined);
    // U+3001 IDEOGRAPHIC COMMA has Script Common but belongs to the CJK scripts (and Yi, Mongolian).
    assert.equal(mixedScripts('abc\u3001'), undefined, 'Latin + Han is an allowed cover');
    assert.ok(mixedScripts('\u0430\u0431\u0432\u3001')?.includes('Cyrillic'));
  });

  it("tells a character's scripts", () => {
    assert.deepEqual(scriptsOf('a'), ['Latin']);
    assert.deepEqual(scriptsOf('\u0430'), ['Cyrillic']);
    assert.deepEqual(scriptsOf('7'), ['Common']);
    assert.deepEqual(scriptsOf('\u0327'), ['Common'], 'Inherited (a combining cedilla) fits any script, as Common does');
    assert.ok(scriptsOf('\u0301').includes('Latin'), 'the combining acute is Inherited but listed for Latin, Greek, Cyrillic and others');
    assert.deepEqual(scriptsOf('ー'), ['Hiragana', 'Katakana']);
    assert.deepEqual(scriptsOf('\ue000'), ['Unknown']);
  });
});

describe('The list of Unicode scripts', () => {
  it('names only scripts this Node knows, once each, sorted', () => {
    for (const script of unicodeScripts) assert.doesNotThrow(() => new RegExp(`\\p{scx=${script}}`, 'u'), script);
    assert.deepEqual([...new Set(unicodeScripts)].sort(), unicodeScripts);
  });

  it(`covers every assigned character of Unicode ${process.versions.unicode}`, () => {
    const listed = new RegExp(`^[${unicodeScripts.map((s) => `\\p{scx=${s}}`).join('')}\\p{scx=Common}\\p{scx=Inherited}]$`, 'u');
    const outsideAnyScript = /^[\p{Cn}\p{Co}\p{Cs}]$/u;
    const missing: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      const char = String.fromCodePoint(cp);
      if (!outsideAnyScript.test(char) && !listed.test(char)) missing.push(`U+${cp.toString(16).toUpperCase()}`);
    }
    assert.deepEqual(missing.slice(0, 20), [], 'add the scripts of these characters to src/validation/unicode-scripts.ts');
  });
});
