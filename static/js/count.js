// One way to count characters, shared by every counter and by the server
// (reviewapp.text.length): JavaScript's String length, in UTF-16 code units,
// as accounted and the agent's renderer count (an emoji is 2, a flag or a
// skin-toned emoji 4, "e" with a combining accent 2). Line breaks count as
// one and surrounding white space is not counted, as the server trims.
// Plain function, no page needed: tests/answers/test_char_count.py runs it in node.
(function (root) {
  "use strict";
  function charCount(value) {
    return String(value).replace(/\r\n?/g, "\n").trim().length;
  }
  if (typeof module === "object" && module.exports) {
    module.exports = { charCount: charCount };
  } else {
    root.reviewApp = root.reviewApp || {};
    root.reviewApp.charCount = charCount;
  }
})(typeof window === "undefined" ? globalThis : window);
