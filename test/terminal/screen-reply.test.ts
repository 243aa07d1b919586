/**
 * Where a turn's reply starts on the end screen (src/terminal/screen-reply.ts): after the last
 * lines the transcript had before the turn, then after the prompt's echo. Each rule on both sides
 * of its line; test/terminal/turn-payload.test.ts has the common cases.
 */
import { describe, expect, it } from 'vitest';
import { replyFromScreen } from '../../src/terminal/screen-reply.js';

describe('the transcript before the turn', () => {
  it('is found again by its last three lines, whatever came before them', () => {
    // The first lines of the baseline scrolled out of the pane by the end of the turn.
    const before = 'scrolled 1\nscrolled 2\nkept 1\nkept 2\nkept 3';
    const end = 'kept 1\nkept 2\nkept 3\n● the reply';
    expect(replyFromScreen(before, end, null)).toEqual({ text: '● the reply', whole: true });
  });

  it('only where all of those lines stand in order, the first match from the top', () => {
    const before = 'a\nb\nc';
    // `a` alone, and `a b` without `c`, are not the block; the block twice: the first one.
    const end = 'a\nx\na\nb\nz\na\nb\nc\nreply 1\na\nb\nc\nreply 2';
    expect(replyFromScreen(before, end, null).text).toBe('reply 1\na\nb\nc\nreply 2');
  });

  it('a block at the very end of the screen leaves no reply', () => {
    expect(replyFromScreen('a\nb', 'x\na\nb', null)).toEqual({ text: '', whole: true });
  });

  it('a shorter baseline is its own block', () => {
    expect(replyFromScreen('only', 'only\nreply', null)).toEqual({ text: 'reply', whole: true });
  });

  it('blank lines at either end of either screen are not part of it', () => {
    const before = '\n\nbanner\n● old reply\n\n\n';
    const end = '\nbanner\n● old reply\n\n● new reply\n\n';
    expect(replyFromScreen(before, end, null)).toEqual({ text: '● new reply', whole: true });
    // Lines that are blank but for trailing spaces count as blank.
    expect(replyFromScreen('banner  \n   \n', 'banner\n  \nreply  \n ', null)).toEqual({
      text: 'reply',
      whole: true,
    });
  });

  it('an empty transcript before starts at the top when the prompt is not known', () => {
    expect(replyFromScreen('', 'first\nsecond', null)).toEqual({
      text: 'first\nsecond',
      whole: true,
    });
    expect(replyFromScreen('\n \n', 'first', null)).toEqual({ text: 'first', whole: true });
  });

  it('a transcript before that is not on the end screen: the whole screen, not whole', () => {
    expect(replyFromScreen('gone', 'a\nb', null)).toEqual({ text: 'a\nb', whole: false });
  });
});

describe("the prompt's echo", () => {
  it('is looked for only after the transcript before, not in it', () => {
    const before = '❯ hello\n● old reply';
    const end = '❯ hello\n● old reply\n❯ hello\n● new reply';
    expect(replyFromScreen(before, end, 'hello')).toEqual({ text: '● new reply', whole: true });
  });

  it('is matched with runs of white space as one space, and its ends trimmed', () => {
    const end = '❯ fix   the\ttests\n● done';
    expect(replyFromScreen('', end, '  fix the tests  ')).toEqual({ text: '● done', whole: true });
    expect(replyFromScreen('', '❯ fix the tests\n● done', 'fix \t the  tests')).toEqual({
      text: '● done',
      whole: true,
    });
  });

  it('is known by its first 40 characters when the CLI wraps a long prompt', () => {
    const prompt = 'please read every file in the folder and then tell me what they do';
    // Drawn over two rows; the first row holds the prompt's first 44 characters only.
    const end = `❯ ${prompt.slice(0, 44)}\n  ${prompt.slice(44)}\n● it reads them`;
    expect(replyFromScreen('', end, prompt)).toEqual({ text: '● it reads them', whole: true });
  });

  it("ends at the row holding the last 20 characters of the prompt's last line", () => {
    const prompt = 'a'.repeat(45) + ' then the very end of it';
    // Wrapped after 46 characters: the head on the first row, the tail on the second.
    const end = `❯ ${prompt.slice(0, 46)}\n  ${prompt.slice(46)}\n● reply`;
    expect(replyFromScreen('', end, prompt)).toEqual({ text: '● reply', whole: true });
  });

  it('a multi-line prompt ends at its last line, blank lines around it left out', () => {
    const prompt = '\nfirst line\n\nsecond line\nthird line\n\n';
    const end = '> first line\n\n  second line\n  third line\n\n● Three lines.';
    expect(replyFromScreen('', end, prompt)).toEqual({ text: '● Three lines.', whole: true });
  });

  it('an echo whose tail is not drawn near it ends at its head', () => {
    const end = '❯ short prompt\n● the reply\n  goes on';
    expect(replyFromScreen('', end, 'short prompt\nand a line never drawn')).toEqual({
      text: '● the reply\n  goes on',
      whole: true,
    });
  });

  it('not on the screen, with nothing of the transcript before: the end only, not whole', () => {
    expect(replyFromScreen('', 'a\nb', 'elsewhere')).toEqual({ text: 'a\nb', whole: false });
    // With no prompt known, the same screen is the whole reply.
    expect(replyFromScreen('', 'a\nb', null).whole).toBe(true);
  });

  it('found after the transcript before: anchored by both', () => {
    const end = 'banner\n❯ go\n● went';
    expect(replyFromScreen('banner', end, 'go')).toEqual({ text: '● went', whole: true });
    // The transcript before is gone, the echo is there: whole all the same.
    expect(replyFromScreen('gone', end, 'go')).toEqual({ text: '● went', whole: true });
  });
});
