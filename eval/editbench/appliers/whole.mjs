// @ts-check
// Writing the whole file: whatever the model sends becomes the file.

/** @param {string} _content @param {string} text */
export function wholeWrite(_content, text) {
  return text
}
