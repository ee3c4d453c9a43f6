/** A one-line progress display on a terminal; silent when stderr is not a TTY. */
export function progressLine(label: string): { update(text: string): void; done(text: string): void } {
  const tty = process.stderr.isTTY;
  let last = 0;
  return {
    update(text) {
      const now = Date.now();
      if (!tty || now - last < 100) return;
      last = now;
      process.stderr.write(`\r\x1b[2K${label} ${text}`);
    },
    done(text) {
      if (tty) process.stderr.write(`\r\x1b[2K`);
      process.stderr.write(`${label} ${text}\n`);
    },
  };
}

/** `[#####-----] 50%` for a share in [0, 1]. */
export const bar = (share: number, width = 24): string => {
  const filled = Math.round(Math.max(0, Math.min(1, share)) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(share * 100)}%`;
};
