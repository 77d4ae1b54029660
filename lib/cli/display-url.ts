/**
 * A URL as the command prints it: scheme, host and path, without the user name and password or the
 * query and fragment, where credentials and API keys ride (`http://user:secret@host/?api_key=…`).
 * Text that is not a URL is not printed at all: where its credentials would be cannot be told.
 *
 * @example
 * ```ts
 * displayUrl('https://key:secret@registry.example.com/apis/ccompat/v7?token=t'); // 'https://registry.example.com/apis/ccompat/v7'
 * ```
 */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(not a URL)';
  }
  // A bare host parses with the path '/': printed as it was given.
  return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}
