; TL501 unsafe-torch-load
; torch.load that may unpickle arbitrary objects.

; torch.load(path, weights_only=False)
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @_key
      value: (false)))) @finding
  (#eq? @_key "weights_only")
  (#api? @finding torch-load))

; torch.load(path, pickle_module=dill)
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @_key
      value: (_) @_value))) @finding
  (#eq? @_key "pickle_module")
  (#not-eq? @_value "None")
  (#api? @finding torch-load))

; before 2.6, torch.load(path) unpickles by default
((call) @finding
  (#api? @finding torch-load)
  (#not-passes-keyword? @finding weights_only)
  (#not-torch-version-at-least? @finding "2.6"))
