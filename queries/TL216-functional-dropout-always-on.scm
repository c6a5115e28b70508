; TL216 functional-dropout-always-on
; Dropout that ignores the module's mode, in code a module runs: a
; functional dropout with no `training` argument (it defaults to True), or
; an nn.Dropout built and called on the spot (a new layer is in train
; mode). After model.eval() it still drops activations. A probability of
; zero, code that tests the mode itself and functions no module runs are
; left alone.

; F.dropout(x, p) in a module's code (or a helper it calls)
((call
  function: [
    (identifier)
    (attribute)
  ]) @finding
  (#api? @finding functional-dropout)
  (#not-passes-argument? @finding training)
  (#not-argument-off? @finding p)
  (#in-module-code? @finding reached)
  (#not-mode-guarded? @finding)
  (#not-under-context? @finding grad-disabled))

; The same call in a method with `self`, with its arguments for the fix
; (`training=self.training`).
((call
  function: [
    (identifier)
    (attribute)
  ]
  arguments: (argument_list) @_args) @finding
  (#api? @finding functional-dropout)
  (#not-passes-argument? @finding training)
  (#not-argument-off? @finding p)
  (#in-module-code? @finding method)
  (#not-mode-guarded? @finding)
  (#not-under-context? @finding grad-disabled))

; nn.Dropout(p)(x): a layer built and called where it is used
((call
  function: (call) @_layer) @finding
  (#api? @_layer dropout-module)
  (#not-argument-off? @_layer p)
  (#in-module-code? @finding reached)
  (#not-mode-guarded? @finding)
  (#not-under-context? @finding grad-disabled))
