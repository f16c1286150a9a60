// The site's math, typeset at build time by MathJax 4 (CommonHTML output, New Computer Modern font),
// for posenc_book.sphinx.static_math: one process per Sphinx build, so MathJax starts once.
//
// stdin: one JSON request a line; stdout: one JSON answer a line, in the same order.
//   {"tex": "\\omega_i", "display": false}  ->  {"html": "<mjx-container ...>"}  or  {"error": "..."}
//   {"css": true}                           ->  {"css": "..."}, the stylesheet of every formula so far
// Each formula carries its MathML (AssistiveMmlHandler), hidden on screen, for screen readers; the
// CommonHTML output writes the characters themselves into the page (selectable, searchable).
import {createInterface} from 'node:readline';
import {mathjax} from '@mathjax/src/mjs/mathjax.js';
// Some characters (double-struck, calligraphic, big delimiters) need font data loaded on demand.
import '@mathjax/src/mjs/util/asyncLoad/esm.js';
import {TeX} from '@mathjax/src/mjs/input/tex.js';
import '@mathjax/src/mjs/input/tex/base/BaseConfiguration.js';
import '@mathjax/src/mjs/input/tex/ams/AmsConfiguration.js';
import '@mathjax/src/mjs/input/tex/newcommand/NewcommandConfiguration.js';
import '@mathjax/src/mjs/input/tex/boldsymbol/BoldsymbolConfiguration.js';
import {CHTML} from '@mathjax/src/mjs/output/chtml.js';
import {liteAdaptor} from '@mathjax/src/mjs/adaptors/liteAdaptor.js';
import {RegisterHTMLHandler} from '@mathjax/src/mjs/handlers/html.js';
import {AssistiveMmlHandler} from '@mathjax/src/mjs/a11y/assistive-mml.js';

// The fonts' address, relative to the stylesheet (both in _static/): static_math copies them there.
const fontURL = process.argv[2] || 'mathjax-fonts';

const adaptor = liteAdaptor();
AssistiveMmlHandler(RegisterHTMLHandler(adaptor));
// No noerrors or noundefined: an error is reported (and fails the build), never disguised.
const tex = new TeX({packages: ['base', 'ams', 'newcommand', 'boldsymbol']});
const doc = mathjax.document('', {InputJax: tex, OutputJax: new CHTML({fontURL})});

// MathJax 4 writes each node's TeX into a data-latex attribute: a third of a chapter's math markup,
// which nothing on the site reads.
const DATA_LATEX = / data-latex="[^"]*"/g;

async function answer(request) {
  if (request.css) {
    return {css: adaptor.textContent(doc.outputJax.styleSheet(doc))};
  }
  const node = await mathjax.handleRetriesFor(() => doc.convert(request.tex, {display: request.display}));
  const html = adaptor.outerHTML(node);
  const error = html.match(/data-mjx-error="([^"]*)"/);
  if (error) {
    return {error: error[1].replace(/&amp;/g, '&').replace(/&quot;/g, '"')};
  }
  // The search index (Pagefind) reads the formula once, from its MathML (plain letters: ω, i), not
  // a second time from the characters drawn on screen (𝜔𝑖, mathematical italic): "𝜔𝑖ωi" in excerpts.
  return {html: html.replace(DATA_LATEX, '').replace('<mjx-math ', '<mjx-math data-pagefind-ignore ')};
}

// One request at a time, in order: the answers come back in the order of the questions.
const lines = createInterface({input: process.stdin, crlfDelay: Infinity});
for await (const line of lines) {
  if (!line.trim()) continue;
  let reply;
  try {
    reply = await answer(JSON.parse(line));
  } catch (err) {
    reply = {error: String(err && err.message || err)};
  }
  process.stdout.write(JSON.stringify(reply) + '\n');
}
