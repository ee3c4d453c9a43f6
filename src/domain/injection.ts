/**
 * A heuristic for text that reads like instructions aimed at agents rather than a finding:
 * it only sets the `possible-prompt-injection` flag, it never blocks publishing.
 */
const PATTERNS: RegExp[] = [
  /\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all|any|your|system)\b[^.\n]{0,30}\b(instructions?|prompts?|rules|directions|guidelines)\b/i,
  /\byou are now\b|\bact as\b[^.\n]{0,30}\b(admin|root|developer mode|dan)\b|\bdeveloper mode\b|\bjailbreak/i,
  /\b(reveal|print|show|output|leak|send|exfiltrate|share)\b[^.\n]{0,40}\b(system prompt|api[ _-]?keys?|secrets?|passwords?|credentials|tokens?|private keys?|env(ironment)? variables)\b/i,
  /\b(run|execute|eval)\b[^.\n]{0,25}\b(this|the following|these)\b[^.\n]{0,15}\b(commands?|code|script|shell)\b/i,
  /\b(curl|wget)\b[^\n|]{0,200}\|\s*(ba|z)?sh\b/i,
  /<\|?(im_start|im_end|system|endoftext)\|?>|\[\/?(INST|SYS)\]|^\s*#{2,}\s*(system|instructions?)\s*:?\s*$/im,
  /\bnew instructions\s*:|\bsystem\s*:\s*you\b/i,
];

/**
 * The patterns as one expression, so that a text is read once instead of once per pattern
 * (half the time). Only the markup pattern anchors lines, so its `m` flag changes no other.
 */
const ANY = new RegExp(PATTERNS.map((p) => `(?:${p.source})`).join('|'), 'im');

export function looksLikePromptInjection(...texts: string[]): boolean {
  return texts.some((t) => ANY.test(t));
}
