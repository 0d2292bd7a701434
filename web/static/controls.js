// stick's page: copy buttons, and a confirmation before a form that
// cannot be undone. Without this script the text to copy is selectable
// and the forms send at once, under their clearly labelled buttons.
(function () {
  "use strict";

  // A button data-copy="ID" copies the text of the element ID (an
  // input's value, else its text) and says so beside it.
  var say = function (button, text) {
    var id = button.getAttribute("aria-describedby");
    var status = id && document.getElementById(id);
    if (status) {
      status.textContent = text;
      window.setTimeout(function () { status.textContent = ""; }, 4000);
    }
  };
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source || !navigator.clipboard) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      var text = source.value !== undefined ? source.value : source.textContent;
      navigator.clipboard.writeText(text).then(function () {
        say(button, "Copied.");
      }, function () {
        say(button, "Could not copy: select the text and copy it by hand.");
        if (source.select) { source.select(); }
      });
    });
  });

  // A form data-confirm="question" is sent only once the reader agrees.
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.getAttribute("data-confirm"))) { event.preventDefault(); }
    });
  });
})();
