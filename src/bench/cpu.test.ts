import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandCpuMs, processCpuMs } from './cpu.js';

/** This process's command as /proc names it (what commandCpuMs matches). */
const ownCommand = () => readFileSync(`/proc/${process.pid}/comm`, 'utf8').trim();

describe.runIf(process.platform === 'linux')('bench CPU accounting (/proc)', () => {
  it('counts a process’s time as it works, and nothing for a process that is not there', () => {
    const before = processCpuMs(process.pid)!;
    expect(before).toBeGreaterThanOrEqual(0);
    // Work until the kernel's count (ticks of 10 ms) moves, or give up after 10 s.
    let after = before;
    for (const until = Date.now() + 10_000; after === before && Date.now() < until; ) {
      for (let i = 0, x = 0; i < 1e6; i++) x += Math.sqrt(i);
      after = processCpuMs(process.pid)!;
    }
    expect(after).toBeGreaterThan(before);
    expect(processCpuMs(2 ** 22 + 1)).toBeNull();
  });

  it('sums every process of a command, a command with spaces in its name included', async () => {
    // A child named apart from this process, idle once it says so: its time is its own command's, not ours.
    const child = spawn(process.execPath, ['-e', 'process.title = "ab cpu test"; console.log("ready"); setTimeout(() => {}, 10000)']);
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      await new Promise((r) => setTimeout(r, 100));
      const own = processCpuMs(child.pid!)!;
      expect(commandCpuMs('ab cpu test')).toBe(own);
      // Read ours first: it only grows, and the sum read after it holds it.
      const ours = processCpuMs(process.pid)!;
      expect(commandCpuMs(ownCommand())!).toBeGreaterThanOrEqual(ours);
      expect(commandCpuMs('no such command here')).toBe(0);
    } finally {
      child.kill();
    }
  });

  it('keeps the time of a process that ended, handed to its parent of the same command', async () => {
    // A parent that starts a child of its own command, which works ~200 ms, says what it spent, and ends.
    const grandchild = `process.title = "ab cpu sum"; const t = Date.now(); while (Date.now() - t < 200); const u = process.cpuUsage(); console.log((u.user + u.system) / 1000)`;
    const parent = spawn(process.execPath, [
      '-e',
      `process.title = "ab cpu sum"; const c = require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(grandchild)}]);
       let out = ""; c.stdout.on("data", (d) => (out += d)); c.on("exit", () => console.log(out.trim())); setTimeout(() => {}, 20000)`,
    ]);
    try {
      const spent = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString()))));
      expect(spent).toBeGreaterThan(0);
      // Only the parent is left: its own time and its ended child's, whose user and system times
      // are each counted in whole ticks (10 ms): up to two ticks short of what the child measured.
      expect(commandCpuMs('ab cpu sum')!).toBeGreaterThanOrEqual(processCpuMs(parent.pid!)! + spent - 20);
    } finally {
      parent.kill();
    }
  });
});
