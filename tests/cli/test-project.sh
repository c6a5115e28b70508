#!/bin/sh
# The project model (issue 23, RULES.md principle 2): `torchlint train.py`
# reads the local modules train.py imports, named or not, as Python would
# find them (script folder, package chain, pyproject.toml / setup.py / .git
# root, src/ layout, [tool.torchlint] src, relative imports, __init__
# re-exports, star imports); third-party names stay unknown; import cycles
# end; findings are reported only in the analysed files; --show-files=context
# lists the modules read.
# usage: test-project.sh TORCHLINT
set -u
. "$(dirname "$0")/lib.sh"
corpus=$(cd "$(dirname "$0")/../../corpus/projects" && pwd)

# A criterion class in another module: `total += crit(...)` keeps the graph.
mkdir -p "$tmp/a"
cd "$tmp/a" || exit 1
touch pyproject.toml
cat >losses.py <<'PY'
import torch.nn as nn
import torch.nn.functional as F


class FocalLoss(nn.Module):
    def forward(self, logits, target):
        return F.cross_entropy(logits, target)
PY
cat >train.py <<'PY'
import torch
import torch.nn as nn
from losses import FocalLoss


def train(loader):
    model = nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = FocalLoss()
    total = 0.0
    for x, y in loader:
        opt.zero_grad()
        crit(model(x), y).backward()
        opt.step()
        total += crit(model(x), y)
    return total
PY
run imported-criterion 1 "$bin" --extend-select TL101 --format concise train.py
has imported-criterion "$tmp/out" "train.py:15:9: TL101"
hasnt only-analysed-files "$tmp/out" "losses.py"
run show-context 0 "$bin" --show-files=context train.py
has show-context-file "$tmp/out" "train.py"
has show-context-module "$tmp/out" "losses.py (context)"
lines show-context-lines "$tmp/out" 2
run show-files-plain 0 "$bin" --show-files train.py
lines show-files-plain-lines "$tmp/out" 1
run show-files-bad-value 2 "$bin" --show-files=everything train.py
# The file alone (the module moved away): nothing known, nothing reported.
mv losses.py losses.txt
run module-missing 0 "$bin" --format concise train.py
mv losses.txt losses.py

# A package: relative imports, a re-export in __init__.py, a star import,
# a src/ layout, and a cycle between two modules.
mkdir -p "$tmp/b/src/proj/sub"
cd "$tmp/b" || exit 1
cat >pyproject.toml <<'TOML'
[project]
name = "proj"
TOML
cat >src/proj/__init__.py <<'PY'
from .sub import make_loss
PY
cat >src/proj/sub/__init__.py <<'PY'
from .impl import *
PY
cat >src/proj/sub/impl.py <<'PY'
import torch.nn.functional as F
from .. import cycle  # noqa: TL001


def make_loss(logits, target):
    return F.cross_entropy(logits, target)
PY
cat >src/proj/cycle.py <<'PY'
from .sub.impl import make_loss


def again(a, b):
    return make_loss(a, b)
PY
cat >src/proj/train.py <<'PY'
import torch
import torch.nn as nn

from proj import make_loss
from .cycle import again


def train(loader):
    model = nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    hist, seen = [], []
    for x, y in loader:
        opt.zero_grad()
        hist.append(make_loss(model(x), y))
        seen.append(again(model(x), y))
        opt.step()
PY
run src-layout 1 "$bin" --extend-select TL101 --format concise src/proj/train.py
has src-layout-reexport "$tmp/out" "train.py:14:9: TL101"
has src-layout-relative-cycle "$tmp/out" "train.py:15:9: TL101"

# [tool.torchlint] src names a root that nothing else would find.
mkdir -p "$tmp/c/app" "$tmp/c/libs/helpers"
cd "$tmp/c" || exit 1
cat >pyproject.toml <<'TOML'
[tool.torchlint]
src = ["libs"]
TOML
cat >libs/helpers/__init__.py <<'PY'
import torch.nn.functional as F


def loss_of(model, x, y):
    return F.cross_entropy(model(x), y)
PY
cat >app/train.py <<'PY'
import torch
import torch.nn as nn
from helpers import loss_of


def train(loader):
    model = nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    total = 0
    for x, y in loader:
        opt.zero_grad()
        total += loss_of(model, x, y)
        opt.step()
PY
run config-src 1 "$bin" --extend-select TL101 --format concise app/train.py
has config-src-root "$tmp/out" "train.py:12:9: TL101"
sed -i 's/src = \["libs"\]/src = []/' pyproject.toml
run config-src-unset 0 "$bin" --extend-select TL101 --format concise app/train.py

# A third-party name is never looked up in the project, even when a local
# file of that name exists below a folder Python would not search.
mkdir -p "$tmp/d/vendor"
cd "$tmp/d" || exit 1
touch setup.py
cat >vendor/helpers.py <<'PY'
import torch.nn.functional as F


def loss_of(model, x, y):
    return F.cross_entropy(model(x), y)
PY
cp "$tmp/c/app/train.py" train.py
run not-on-path 0 "$bin" --format concise train.py

# The reverse question: train.py's fit() is called only from main.py,
# which imports train and passes a model whose forward ends in a softmax
# (model.py). The analysed file's parameter then holds that model.
mkdir -p "$tmp/e"
cd "$tmp/e" || exit 1
touch setup.cfg
cat >model.py <<'PY'
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return F.softmax(self.fc(x), dim=1)
PY
cat >train.py <<'PY'
import torch
import torch.nn as nn


def fit(classifier, loader):
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(classifier.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        loss = crit(classifier(x), y)
        loss.backward()
        opt.step()
PY
mkdir -p scripts
cat >scripts/main.py <<'PY'
import model
import train

train.fit(model.Net(), [])
PY
# main.py in scripts/ (not a package): it imports train from scripts/, where
# there is none; it is found from the project's folder only when it is there.
mv scripts/main.py main.py
run importer-softmax 1 "$bin" --format concise train.py
has importer-softmax-found "$tmp/out" "train.py:10:16: TL208"
run importer-context 0 "$bin" --show-files=context train.py
has importer-context-main "$tmp/out" "main.py (context)"
has importer-context-model "$tmp/out" "model.py (context)"
# An importer in a folder the configuration excludes is not read.
mkdir -p tools
mv main.py tools/main.py
cat >pyproject.toml <<'TOML'
[tool.torchlint]
src = ["."]
TOML
cat >tools/main.py <<'PY'
import model
import train

train.fit(model.Net(), [])
PY
run importer-in-tools 1 "$bin" --format concise train.py
has importer-in-tools-found "$tmp/out" "train.py:10:16: TL208"
echo 'extend-exclude = ["tools"]' >>pyproject.toml
run importer-excluded 0 "$bin" --format concise train.py
run importer-excluded-context 0 "$bin" --show-files=context train.py
hasnt importer-excluded-not-read "$tmp/out" "main.py"
sed -i '/extend-exclude/d' pyproject.toml
# The scan for importers honours .gitignore (project/scan.h): an importer
# in a folder git ignores is not read (before, it was). --no-gitignore
# reads it again. One in `build` (a default exclude, as venvs and caches
# are) is not read either.
echo 'tools/' >.gitignore
mkdir -p .git
run importer-gitignored 0 "$bin" --format concise train.py
run importer-gitignored-context 0 "$bin" --show-files=context train.py
hasnt importer-gitignored-not-read "$tmp/out" "main.py"
run importer-no-gitignore 1 "$bin" --no-respect-gitignore --format concise train.py
has importer-no-gitignore-found "$tmp/out" "train.py:10:16: TL208"
rm -rf .git .gitignore
mv tools build
run importer-in-build 0 "$bin" --format concise train.py
mv build tools
# Callers that disagree (a second importer passes logits): nothing known.
cat >tools/other.py <<'PY'
import torch.nn as nn
import train

train.fit(nn.Linear(4, 3), [])
PY
run importers-disagree 0 "$bin" --format concise train.py
rm tools/other.py
# More importer candidates than are parsed (25 files whose import lines
# name train): its importers are unknown.
i=0
while [ $i -lt 25 ]; do echo 'import train' >"tools/user$i.py"; i=$((i + 1)); done
run importers-over-bound 0 "$bin" --format concise train.py
rm tools/user*.py
# A project over the scan's bound (more than 300 .py files): no importers.
mkdir -p gen
i=0
while [ $i -lt 301 ]; do : >"gen/m$i.py"; i=$((i + 1)); done
run scan-over-bound 0 "$bin" --format concise train.py
rm -r gen
# A tree over the scan's bound in entries of any kind (10,001 images, no
# .py among them): the walk stops, no importers (before, only .py files
# counted and the whole tree was listed).
mkdir -p images
python3 -c 'import os
for i in range(10001): open("images/img%05d.JPEG" % i, "w").close()'
run scan-over-entries 0 "$bin" --format concise train.py
rm -r images
run importer-back 1 "$bin" --format concise train.py
# A shared folder (world-writable and sticky, as /tmp) is no project root:
# a file directly in it has no scanned importers (before, every .py file
# there was read, other users' too) ...
mkdir -p "$tmp/shared"
chmod 1777 "$tmp/shared"
cp model.py train.py "$tmp/shared/"
printf 'import model\nimport train\n\ntrain.fit(model.Net(), [])\n' >"$tmp/shared/main.py"
(cd "$tmp/shared" && "$bin" --format concise train.py) >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ]; then ok; else bad "shared-folder: exit $rc, expected 0"; fi
hasnt shared-folder-not-scanned "$tmp/out" "TL208"
# ... and a marker planted there (setup.py in the shared folder) makes it
# no project root either: the file's own folder is walked, not the
# shared one where main.py lies.
mkdir -p "$tmp/shared/proj"
mv "$tmp/shared/model.py" "$tmp/shared/train.py" "$tmp/shared/proj/"
: >"$tmp/shared/setup.py"
printf 'from proj import model, train\n\ntrain.fit(model.Net(), [])\n' >"$tmp/shared/main.py"
(cd "$tmp/shared/proj" && "$bin" --format concise train.py) >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ]; then ok; else bad "shared-marker: exit $rc, expected 0"; fi
hasnt shared-marker-not-root "$tmp/out" "TL208"
chmod 755 "$tmp/shared"
(cd "$tmp/shared/proj" && "$bin" --format concise train.py) >"$tmp/out" 2>"$tmp/err"
has shared-marker-private-root "$tmp/out" "train.py:10:16: TL208"
# A project that lies below a folder named build (a default exclude): its
# folder is the one walked, what is above it does not count.
mkdir -p "$tmp/f/build"
cp -r "$tmp/e" "$tmp/f/build/proj"
cd "$tmp/f/build/proj" || exit 1
run importer-below-build 1 "$bin" --format concise train.py
has importer-below-build-found "$tmp/out" "train.py:10:16: TL208"

# Loaders, samplers and autocast contexts that another module's function
# builds and hands back (facts/handed.c), from corpus/projects: found
# through the factory module, gone when it cannot be read, and silenced
# by a helper of a third module that sets the sampler's epoch.
cp -r "$corpus/loader_factory/flagged" "$tmp/g"
cd "$tmp/g" || exit 1
run factory-loader 1 "$bin" --format concise train.py
has factory-loader-tuple "$tmp/out" "train.py:19:21: TL215"
has factory-loader-dict "$tmp/out" "train.py:35:21: TL215"
has factory-loader-sampler-beside "$tmp/out" "train.py:44:21: TL215"
has factory-loader-unpinned "$tmp/out" "train.py:21:17: TL306"
run factory-context 0 "$bin" --show-files=context train.py
has factory-context-module "$tmp/out" "loaders.py (context)"
mv data/loaders.py data/loaders.txt
run factory-missing 0 "$bin" --format concise train.py
mv data/loaders.txt data/loaders.py
cp "$corpus/loader_factory/epoch_helper/data/epochs.py" data/epochs.py
cat >>train.py <<'PY'


def fit_with_helper(model, opt, train_set, val_set, epochs):
    from data.epochs import start_epoch

    train_loader, _ = build_loaders(train_set, val_set, 2, 0)
    for epoch in range(epochs):
        start_epoch(train_loader, epoch)
        for x, y in train_loader:
            step(model, opt, x, y)
PY
run factory-epoch-helper 1 "$bin" --format concise -q train.py
helper_loop=$(grep -n 'start_epoch(train_loader, epoch)' train.py | cut -d: -f1)
hasnt factory-epoch-helper-silent "$tmp/out" "train.py:$((helper_loop + 1)):"
# fit() draws from the same DistributedSampler construction (the one in
# build_loaders), whose epoch the helper sets: silent too, the others stay.
hasnt factory-epoch-helper-same-sampler "$tmp/out" "train.py:19:"
has factory-epoch-helper-dict "$tmp/out" "train.py:35:21: TL215"
has factory-epoch-helper-passed-back "$tmp/out" "train.py:60:21: TL215"
lines factory-epoch-helper-others "$tmp/out" 5
cp -r "$corpus/autocast_helper/flagged" "$tmp/h"
cd "$tmp/h" || exit 1
run autocast-helper 1 "$bin" --format concise train.py
has autocast-helper-call "$tmp/out" "train.py:16:16: TL401"
has autocast-helper-alias "$tmp/out" "train.py:31:16: TL401"
has autocast-helper-method "$tmp/out" "train.py:46:16: TL401"
mv utils/amp.py utils/amp.txt
run autocast-helper-missing 0 "$bin" --format concise train.py

# Star imports that import each other: 40 modules each star-importing the
# 39 others, and a package whose __init__.py star-imports 300 modules that
# star-import the package back. A name none of them binds is looked up
# once per module (the miss is kept), not along every path of stars: each
# run takes well under a second (before: 51 s and 14 s, then TL002), and
# the lookups count against the file's CPU bound.
mkdir -p "$tmp/stars/pkg"
cd "$tmp/stars" || exit 1
touch pyproject.toml
i=0
while [ $i -lt 40 ]; do
	j=0
	while [ $j -lt 40 ]; do [ $j = $i ] || echo "from m$j import *"; j=$((j + 1)); done >"m$i.py"
	printf 'def f%d(x):\n    return x\n' $i >>"m$i.py"
	i=$((i + 1))
done
i=0
while [ $i -lt 300 ]; do
	echo "from .s$i import *"
	printf 'from pkg import *\nfrom . import *\n\n\ndef g%d(x):\n    return x\n' $i >"pkg/s$i.py"
	i=$((i + 1))
done >pkg/__init__.py
cat >train.py <<'PY'
import torch
import torch.nn as nn
import m0
from m1 import nothing_here
from pkg import nor_this, Missing


def train(loader):
    model = Missing()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        loss = m0.undefined_a(model(x), y) + nothing_here(x) + nor_this(x)
        loss.backward()
        opt.step()
PY
run star-cycles 0 env TORCHLINT_CPU_SECONDS=5 timeout 30 "$bin" --format concise train.py
hasnt star-cycles-in-bound "$tmp/out" "TL002"
# A name bound five star hops away is still found: the loss function of
# m_e, reached through m_a -> m_b -> m_c -> m_d -> m_e, keeps the graph.
mkdir -p "$tmp/stars2"
cd "$tmp/stars2" || exit 1
touch pyproject.toml
for m in a b c d; do
	next=$(echo "$m" | tr 'abcd' 'bcde')
	printf 'from m_%s import *\nfrom m_a import *\n' "$next" >"m_$m.py"
done
cat >m_e.py <<'PY'
import torch.nn.functional as F


def deep_loss(logits, target):
    return F.cross_entropy(logits, target)
PY
cat >train.py <<'PY'
import torch
import torch.nn as nn
from m_a import deep_loss


def train(loader):
    model = nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    hist = []
    for x, y in loader:
        opt.zero_grad()
        hist.append(deep_loss(model(x), y))
        opt.step()
PY
run star-deep 1 "$bin" --extend-select TL101 --format concise train.py
has star-deep-found "$tmp/out" "train.py:12:9: TL101"

# A project package whose name starts like one of PyTorch's (stylegan2-ada
# and edm have a top-level torch_utils/) is the project's: the same softmax
# model gives TL208 from each of them as from models/.
mkdir -p "$tmp/tu"
cd "$tmp/tu" || exit 1
touch setup.cfg
for m in models torch_utils torch_models pytorch_models torchmodels; do
	mkdir -p "$m"
	: >"$m/__init__.py"
	cp "$tmp/e/model.py" "$m/net.py"
	sed "s/^from model import Net$/from $m.net import Net/" >"train_$m.py" <<'PY'
import torch
import torch.nn as nn
from model import Net


def fit(loader):
    classifier = Net()
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(classifier.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        loss = crit(classifier(x), y)
        loss.backward()
        opt.step()
PY
done
run torch-named-packages 1 "$bin" --format concise train_models.py train_torch_utils.py \
	train_torch_models.py train_pytorch_models.py train_torchmodels.py
for m in models torch_utils torch_models pytorch_models torchmodels; do
	has "torch-named-package-$m" "$tmp/out" "train_$m.py:12:16: TL208"
done

# Inside one of PyTorch's own packages a relative import names the API:
# the semantic model (asked here by TL403's made-by) reads no module of
# the package for it; a project's package of another name is read.
for p in torch mypkg; do
	mkdir -p "$tmp/own/$p"
	: >"$tmp/own/$p/__init__.py"
	cat >"$tmp/own/$p/helpers.py" <<'PY'
import torch


def make(x):
    return torch.softmax(x, 1)
PY
	cat >"$tmp/own/$p/user.py" <<'PY'
import torch
from .helpers import make


def f(x):
    p = make(x)
    return torch.log(p)
PY
done
cd "$tmp/own" || exit 1
run own-package-relative 0 "$bin" --show-files=context torch/user.py
hasnt own-package-relative-unread "$tmp/out" "helpers.py"
run project-package-relative 0 "$bin" --show-files=context mypkg/user.py
has project-package-relative-read "$tmp/out" "mypkg/helpers.py (context)"

echo "project: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
