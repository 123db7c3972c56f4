// @ts-check
// The strict str_replace: the old text must occur in the file exactly once,
// byte for byte; anything else is refused and nothing changes.

export class ExactError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message)
    this.code = code
  }
}

/**
 * @param {string} content
 * @param {{ oldString: string, newString: string }} call
 */
export function exactReplace(content, { oldString, newString }) {
  if (oldString === '') throw new ExactError('EMPTY', 'oldString is empty')
  if (oldString === newString) throw new ExactError('NO_CHANGE', 'oldString and newString are identical')
  const at = content.indexOf(oldString)
  if (at === -1) throw new ExactError('NOT_FOUND', 'oldString not found')
  if (at !== content.lastIndexOf(oldString)) throw new ExactError('AMBIGUOUS', 'oldString occurs more than once')
  return content.slice(0, at) + newString + content.slice(at + oldString.length)
}
