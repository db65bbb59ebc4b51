// The agent's memory files as hermes stores them: entries apart by a line holding "§", each
// trimmed, empty ones dropped (bridge/memory.py). Its length is what the file's limit counts.

const DELIMITER = '\n§\n'

export function memoryLength(text: string): number {
  return text
    .split(DELIMITER)
    .map((entry) => entry.trim())
    .filter(Boolean)
    .join(DELIMITER).length
}

/** Whether a file's text would be refused (a limit of 0: none known). */
export function overLimit(text: string, limit: number | undefined): boolean {
  return Boolean(limit) && memoryLength(text) > (limit as number)
}
