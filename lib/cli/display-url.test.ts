import { describe, expect, it } from 'vitest';
import { displayUrl } from './display-url.ts';

describe('displayUrl', () => {
  it.each([
    [
      'https://key:SECRET@registry.example.com:8081/apis/ccompat/v7/',
      'https://registry.example.com:8081/apis/ccompat/v7/',
    ],
    ['http://127.0.0.1:9324?api_key=SECRET#SECRET', 'http://127.0.0.1:9324'],
    ['http://user@localhost:3001/', 'http://localhost:3001'],
    ['ht!tp://user:SECRET@host', '(not a URL)'],
    ['SECRET', '(not a URL)'],
  ])('prints %s as %s', (url, shown) => {
    expect(displayUrl(url)).toBe(shown);
  });
});
