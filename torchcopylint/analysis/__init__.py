"""Facts about a module, computed once and read by every rule.

`facts.ModuleFacts` is the entry: rules ask it, and it builds each fact lazily, once per module.
Where each concept lives (one place each):

- what names mean: `torchnames` (torch / nn / F aliases); `tensors` (which expressions are
  tensors); `syntax`, `positions` (fast tree access, line and column)
- per function: `aliasing` (storages, views, copies, in-place events, reads); `indexing` (which
  subscripts copy); `containers` (lists, dicts, `torch.cat`, `self.` state across calls)
- across functions: `summaries` (what a function, method or lambda returns, writes, calls);
  `effects` (what a call does to the tensors it is handed); `keeping` (whether a callee leaves an
  argument alone); `classes` (methods and `self.` attributes of a class); `facts.global_values`
  (a script's or notebook's top-level assignments, read by functions)
- autograd: `autograd` ("requires grad" and "never requires grad", the one answer); `graphs` (what
  a backward reaches, later backwards through a value); `training` (backward calls, optimizers,
  hand-written `backward` methods); `leaves` (leaves meant to be trained, copies that lose them);
  `parameters` (in-place writes into layers' parameters)
- GANs: `gan_roles` (which optimizer trains which network); `gan_steps` (the discriminator steps
  that feed it the generator's output, read by TCL003 and TCL011)
- data: `placement` (device and dtype, class labels by use); `loaders` (batches of data loaders)
- static tables: `catalog` (what writes in place)
"""
