# The prelude of run_code's Python: it runs the code as __main__ with the
# context, then writes the value of result as JSON to a side file.
# Arguments: CODE CONTEXT RESULT.
import json, keyword, sys, traceback


def _wield_main():
    code_path, context_path, result_path = sys.argv[1:4]
    with open(context_path, encoding="utf-8") as f:
        context = json.load(f)
    g = {"__name__": "__main__", "__builtins__": __builtins__, "__file__": code_path}
    if isinstance(context, dict):
        for k, v in context.items():
            if k.isidentifier() and not keyword.iskeyword(k) and not k.startswith("__"):
                g[k] = v
    g["context"] = context
    with open(code_path, encoding="utf-8") as f:
        source = f.read()
    sys.argv = [code_path]
    sys.path[0] = ""  # import from the working directory, not the prelude's
    status = 0
    try:
        exec(compile(source, code_path, "exec"), g)
    except SystemExit as e:
        status = e.code
    except BaseException as e:
        # The traceback without the prelude's own frame.
        traceback.print_exception(type(e), e, e.__traceback__.tb_next)
        status = 1
    if "result" in g:
        try:
            data = json.dumps(g["result"], allow_nan=False)
        except (TypeError, ValueError) as e:
            print("run_code: result is not JSON (%s): make it dicts, lists, strings, numbers, booleans or None" % e, file=sys.stderr)
            status = status or 1
        else:
            with open(result_path, "w", encoding="utf-8") as f:
                f.write(data)
    sys.stdout.flush()
    sys.exit(status)


_wield_main()
