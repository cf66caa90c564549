/* theme.js - 'auto' follows the operating system's colour scheme. */
export function resolve(theme) {
  if (theme === 'light' || theme === 'dark') return theme;
  const dark = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
  return dark ? 'dark' : 'light';
}
