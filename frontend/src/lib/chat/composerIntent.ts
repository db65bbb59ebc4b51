/**
 * What the main box's text goes as: a new question (`ask`), guidance for the running agent,
 * read after its current step (`guide`), or the answer to the question it waits on (`answer`:
 * a person types the answer where they type everything else). `asking` is a question the box
 * may answer in free text (not a dangerous command: see approval.freeAnswerQuestion).
 */
export type ComposerIntent = 'ask' | 'guide' | 'answer'

export function composerIntent(running: boolean, asking: boolean): ComposerIntent {
  if (!running) return 'ask'
  return asking ? 'answer' : 'guide'
}
