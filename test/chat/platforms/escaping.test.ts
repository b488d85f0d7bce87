/**
 * Each platform's one escaping rule, on any text: what a reader sees is the text as written,
 * with no mention, link, markup or emoji code taking effect. Discord's markdown is read with a
 * CommonMark + GFM renderer (Discord drops a backslash before any ASCII punctuation, as
 * CommonMark does); Google Chat's text as the HTML subset its cards read. Teams uses the
 * project's Markdown rule, tested on its own in test/form/escape-text.test.ts.
 */
import fc from 'fast-check';
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { escapeDiscordMarkdown } from '../../../src/chat/platforms/discord.js';
import { escapeGoogleChatText } from '../../../src/chat/platforms/gchat.js';
import { escapeControlCharacters } from '../../../src/rules/escape-text.js';

const hostileish = fc.string({
  unit: fc.constantFrom(
    ...'#*_`[]()<>!-+=|~.:$&^{}\\/"\'@ \n1aZé😀\u001b\u202e'.split(''),
    '<@80351110224678912>',
    '<#1234>',
    '<@&42>',
    '<t:1700000000:R>',
    '@everyone',
    '@here',
    '||spoiler||',
    '**bold**',
    '```',
    '<a href="https://e.example">x</a>',
    '[x](https://e.example)',
    '{{emoji:fire}}',
    '1. ',
    '- ',
    '> ',
    '&amp;',
    '\n\n',
  ),
  maxLength: 60,
});

const ENTITIES: Record<string, string> = {
  '&lt;': '<',
  '&gt;': '>',
  '&amp;': '&',
  '&quot;': '"',
  '&#39;': "'",
};
const decode = (html: string) =>
  html.replace(/&(?:lt|gt|amp|quot|#39);/g, (entity) => ENTITIES[entity] as string);
const visible = (text: string) => text.replace(/\s+/g, '');

describe('escapeDiscordMarkdown', () => {
  it('renders any text literally: no element but paragraphs and line breaks, no character lost', () => {
    fc.assert(
      fc.property(hostileish, (text) => {
        // Discord has no indented code blocks; CommonMark does, so lines start unindented here.
        const unindented = text.replace(/^[ \t]+/gm, '');
        const html = marked.parse(escapeDiscordMarkdown(unindented), { async: false, gfm: true });
        const tags = html.match(/<[^>]*>/g) ?? [];
        expect(tags.filter((tag) => !/^<\/?p>$|^<br>$/.test(tag))).toEqual([]);
        expect(visible(decode(html.replace(/<[^>]*>/g, '')))).toBe(
          visible(escapeControlCharacters(unindented, true)),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('puts a backslash before every mention, channel, role, timestamp and spoiler mark', () => {
    expect(escapeDiscordMarkdown('<@1> <#2> <@&3> <t:4:R> ||s|| @everyone')).toBe(
      '\\<\\@1\\> \\<\\#2\\> \\<\\@\\&3\\> \\<t\\:4\\:R\\> \\|\\|s\\|\\| \\@everyone',
    );
  });
});

describe('escapeGoogleChatText', () => {
  it('leaves no tag for any text, and shows it as written', () => {
    fc.assert(
      fc.property(hostileish, (text) => {
        const escaped = escapeGoogleChatText(text);
        expect(escaped).not.toMatch(/[<>]/);
        expect(escaped).not.toContain('**');
        expect(escaped).not.toContain('{{emoji:');
        expect(decode(escaped).replace(/\u2060/g, '')).toBe(escapeControlCharacters(text, true));
      }),
      { numRuns: 1000 },
    );
  });
});
