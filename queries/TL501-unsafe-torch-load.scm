; TL501 unsafe-torch-load
; torch.load that may unpickle arbitrary objects, and checkpoint downloads
; whose weights_only default stays False.

; torch.load(path, weights_only=False), also `flag = False; ..., weights_only=flag`
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @_key
      value: (_) @_value))) @finding
  (#eq? @_key "weights_only")
  (#literal? @_value False)
  (#api? @finding torch-load)
  (#set! default "the default of torch.load from PyTorch 2.6"))

; torch.load(path, pickle_module=dill)
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @_key
      value: (_) @_value))) @finding
  (#eq? @_key "pickle_module")
  (#not-eq? @_value "None")
  (#api? @finding torch-load)
  (#set! default "the default of torch.load from PyTorch 2.6"))

; before 2.6, torch.load(path) unpickles by default
((call) @finding
  (#api? @finding torch-load)
  (#not-passes-keyword? @finding weights_only)
  (#not-torch-version-at-least? @finding "2.6")
  (#not-old-torch-only? @finding)
  (#set! default "the default of torch.load from PyTorch 2.6"))

; the same, with the argument list captured for the fix (weights_only=True),
; unless a pickle_module is passed (torch.load refuses both)
((call
  arguments: (argument_list) @_args) @finding
  (#api? @finding torch-load)
  (#not-passes-keyword? @finding weights_only)
  (#not-passes-keyword? @finding pickle_module)
  (#not-torch-version-at-least? @finding "2.6")
  (#not-old-torch-only? @finding)
  (#set! default "the default of torch.load from PyTorch 2.6"))

; torch.hub.load_state_dict_from_url(url) / model_zoo.load_url(url): the
; default stays weights_only=False at every version (not in a fallback for
; a PyTorch too old to take weights_only=)
((call) @finding
  (#api? @finding hub-load)
  (#not-passes-keyword? @finding weights_only)
  (#not-old-torch-only? @finding)
  (#set! default "its default stays weights_only=False at every PyTorch version"))

((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @_key
      value: (_) @_value))) @finding
  (#eq? @_key "weights_only")
  (#literal? @_value False)
  (#api? @finding hub-load)
  (#set! default "its default stays weights_only=False at every PyTorch version"))
