// The competition page's code editor: CodeMirror 6 with C++/CUDA and Python
// modes, exposed to the page's own script (competition.js) as
// window.cudal1Editor. Bundled by bundle-editor.js at build time.
import { EditorView, basicSetup } from "codemirror";
import { Compartment, EditorState } from "@codemirror/state";
import { cpp } from "@codemirror/lang-cpp";
import { python } from "@codemirror/lang-python";

const languageOf = (format) => (format === "modelnew" ? python() : cpp());

window.cudal1Editor = {
  /// Creates an editor in `parent` holding `text`; returns an object with
  /// get(), set(text), setFormat(format) and focus().
  create(parent, text, format) {
    const language = new Compartment();
    const view = new EditorView({
      parent,
      state: EditorState.create({
        doc: text || "",
        extensions: [basicSetup, language.of(languageOf(format)), EditorView.lineWrapping,
                     EditorView.contentAttributes.of({ "aria-label": "kernel source", "data-testid": "editor" })],
      }),
    });
    return {
      view,
      get: () => view.state.doc.toString(),
      set: (t) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } }),
      setFormat: (f) => view.dispatch({ effects: language.reconfigure(languageOf(f)) }),
      focus: () => view.focus(),
    };
  },
};
