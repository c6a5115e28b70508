; TL207 forward-called-directly
; `model.forward(x)` on a known module from outside its own methods: the
; module's hooks (and DistributedDataParallel's gradient sync) are skipped.
; `self.forward(...)` and `super().forward(...)` inside the class are fine,
; and so is `.forward()` on a wrapper whose forward is its entry point (a
; DistributedDataParallel wrapper, a RemoteModule).
((call
  function: (attribute
    object: (_) @_module
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "forward")
  (#not-eq? @_module "self")
  (#module? @_module)
  (#not-wrapper-module? @_module))
