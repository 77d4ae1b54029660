import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChangeSignal } from './signal.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('ChangeSignal', () => {
  it('wakes every waiter at the next notify, and only waiters taken before it', async () => {
    vi.useFakeTimers();
    const signal = new ChangeSignal();
    const woken: string[] = [];
    void signal.wait(10_000).then(() => woken.push('a'));
    void signal.wait(10_000).then(() => woken.push('b'));
    signal.notify();
    void signal.wait(10_000).then(() => woken.push('c'));
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(['a', 'b']);
    expect(vi.getTimerCount()).toBe(1); // a woken waiter leaves no timer behind
  });

  it('gives up waiting after the bound when nothing notifies', async () => {
    vi.useFakeTimers();
    const signal = new ChangeSignal();
    let woken = false;
    void signal.wait(1_000).then(() => {
      woken = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(woken).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(woken).toBe(true);
  });
});
