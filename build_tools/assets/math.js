// Typeset the math that pymdownx.arithmatex leaves as \( \) and \[ \] in .arithmatex elements,
// with the site's own KaTeX (no CDN), on first load and after every instant-navigation swap.
(function () {
  "use strict";
  function typeset() {
    if (typeof renderMathInElement !== "function") return;
    document.querySelectorAll(".arithmatex").forEach(function (element) {
      renderMathInElement(element, {
        delimiters: [
          { left: "\\(", right: "\\)", display: false },
          { left: "\\[", right: "\\]", display: true },
        ],
        throwOnError: false,
      });
    });
  }
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(typeset);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", typeset);
  } else {
    typeset();
  }
})();
