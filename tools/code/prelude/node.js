// The prelude of run_code's JavaScript: it runs the code as a script in
// the global scope with the global context, and when the process exits
// writes the value of result as JSON to a side file.
// Arguments: CODE CONTEXT RESULT.
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { createRequire } = require('module');

const [codePath, contextPath, resultPath] = process.argv.slice(2);
globalThis.context = JSON.parse(fs.readFileSync(contextPath, 'utf8'));
globalThis.require = createRequire(path.join(process.cwd(), 'main.js'));
process.argv = [process.argv[0], codePath];

process.on('exit', () => {
  let r;
  try {
    r = vm.runInThisContext('typeof result === "undefined" ? undefined : result');
  } catch {
    return; // result is declared but not yet initialised
  }
  if (r === undefined) return;
  let s;
  try {
    s = JSON.stringify(r);
  } catch (e) {
    process.stderr.write(`run_code: result is not JSON (${e.message}): make it objects, arrays, strings, numbers, booleans or null\n`);
    process.exitCode = process.exitCode || 1;
    return;
  }
  if (s !== undefined) fs.writeFileSync(resultPath, s);
});

// Dynamic import() from the script needs the main context's loader, which
// Node calls experimental; its warning would only confuse the reader.
const emitWarning = process.emitWarning;
process.emitWarning = (w, ...rest) => {
  if (!String(w && w.message !== undefined ? w.message : w).includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) {
    emitWarning.call(process, w, ...rest);
  }
};
vm.runInThisContext(fs.readFileSync(codePath, 'utf8'), {
  filename: codePath,
  importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
