; TL207 forward-called-directly
; `model.forward(x)` on a known module from outside its own methods: the
; module's hooks (and DistributedDataParallel's gradient sync) are skipped.
; `self.forward(...)` and `super().forward(...)` inside the class are fine,
; and so is `.forward()` on a wrapper whose forward is its entry point (a
; DistributedDataParallel wrapper, a RemoteModule). The module inside a
; DDP wrapper (`ddp.module`) is the second pattern's: the fix calls the
; wrapper.
((call
  function: (attribute
    object: (_) @_module
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "forward")
  (#not-eq? @_module "self")
  (#module? @_module)
  (#not-wrapper-module? @_module)
  (#not-wrapped-module? @_module ddp))

; ddp.module.forward(x): around both the wrapper and the module's own
; __call__; the fix is to call the wrapper, which @_module captures
((call
  function: (attribute
    object: (attribute
      object: (_) @_module
      attribute: (identifier) @_inner) @_held
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "forward")
  (#eq? @_inner "module")
  (#wrapped-module? @_held ddp))
