; TL214 submodules-in-plain-container
; A module keeps layers (or parameters) it builds in a plain list, tuple or
; dict attribute: nn.Module registers only what is assigned as a module or
; parameter, so these never reach parameters(), .to(), .train()/.eval() or
; state_dict(). Lists of layers registered elsewhere (aliases, a list
; handed to nn.Sequential or nn.ModuleList) are left alone.

; self.layers = [nn.Linear(...) for ...], self.heads = {...}, self.blocks = []
((assignment
  left: (attribute
    object: (identifier) @_self)) @finding
  (#eq? @_self "self")
  (#unregistered-submodules? @finding))

; The same, with the torch.nn name of the elements' constructors, for the
; fix: a list, tuple or comprehension becomes nn.ModuleList(...), a dict
; with string keys nn.ModuleDict(...). Not for parameters (ParameterList).
((assignment
  left: (attribute
    object: (identifier) @_self)
  right: [
    (list
      (call
        function: (attribute
          object: (_) @_nn
          attribute: (identifier) @_cls)))
    (tuple
      (call
        function: (attribute
          object: (_) @_nn
          attribute: (identifier) @_cls)))
    (list_comprehension
      body: (call
        function: (attribute
          object: (_) @_nn
          attribute: (identifier) @_cls)))
  ] @_list) @finding
  (#eq? @_self "self")
  (#any-of? @_nn "nn" "torch.nn")
  (#not-any-of? @_cls "Parameter")
  (#unregistered-submodules? @finding))

((assignment
  left: (attribute
    object: (identifier) @_self)
  right: (dictionary
    (pair
      key: (string)
      value: (call
        function: (attribute
          object: (_) @_nn
          attribute: (identifier) @_cls)))) @_dict) @finding
  (#eq? @_self "self")
  (#any-of? @_nn "nn" "torch.nn")
  (#not-any-of? @_cls "Parameter")
  (#unregistered-submodules? @finding))
