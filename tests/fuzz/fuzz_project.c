/* libFuzzer target: the project model (analyzer/project/) over generated
 * multi-module trees. The input is decoded into a few modules of one
 * project (a pyproject.toml marks its root) whose lines are import forms
 * (absolute, relative with one and two dots, star imports, from-imports
 * with and without aliases, imports of the package itself, so cycles of
 * every length), definitions the imports may find (functions handing back
 * softmax outputs and losses, classes with a forward, re-exports), calls
 * of the imported names in a training loop of train.py, and raw bytes. The
 * tree is written to a fresh temporary folder and train.py and every module
 * are analysed with the project on, as `torchlint train.py` and the
 * language server do (an editor's text for one module, then the project
 * forgotten and asked again). Whatever the bytes: no crash, no sanitizer
 * report, no leak, no stall.
 *
 * Decoding, one op at a time: a byte picks the file (low 3 bits) and the
 * form (next 4 bits); forms that name a module or a name read one more
 * byte for it; the raw form copies up to 64 bytes of the input as they
 * are. */
#define _GNU_SOURCE
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "project/project.h"

enum { TL_FZ_FILES = 8 };

static const char *const tl_fz_files[TL_FZ_FILES] = {
	"train.py",         "pkg/__init__.py", "pkg/a.py",     "pkg/sub/__init__.py",
	"pkg/sub/b.py",     "m0.py",           "m1.py",        "torch_utils/__init__.py",
};

/* Module names, as absolute or relative imports spell them. */
static const char *const tl_fz_mods[] = {
	"pkg", "pkg.a", "pkg.sub", "pkg.sub.b", "m0", "m1", "torch_utils", ".", "..", ".a",
	".sub", ".sub.b", "..a", "..sub.b", "...", "pkg.missing", "torch", "torch.nn", "m0.x",
	"", ".missing",
};

/* Names defined, imported and called. */
static const char *const tl_fz_names[] = {
	"make_loss", "Net", "build", "helper", "run", "Trainer", "step", "fit", "x", "a", "b", "sub",
	"m0", "*", "F", "nn", "torch", "__init__", "forward", "missing",
};

#define TL_FZ_COUNT(a) (sizeof(a) / sizeof *(a))

static int tl_fz__rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Writes `text` to `dir`/`name`, making its folders. */
static void tl_fz__write(const char *dir, const char *name, const TlBuf *text)
{
	TlBuf p;
	tl_buf_init(&p);
	tl_buf_addf(&p, "%s/%s", dir, name);
	for (char *s = p.data + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p.data, 0700);
		*s = '/';
	}
	FILE *f = fopen(p.data, "wb");
	if (f) {
		if (text->len)
			fwrite(text->data, 1, text->len, f);
		fclose(f);
	}
	tl_buf_release(&p);
}

static void tl_fz__analyze(TlEngine *engine, TlProject *project, const char *path)
{
	char why[256];
	TlSource src;
	if (!tl_source_load(&src, path, why, sizeof why))
		return;
	TlFindings findings;
	tl_array_init(&findings);
	TlFileOptions opt = { .selection = &tl_fuzz_all, .torch_version = 204,
			      .imports = tl_project_imports(project) };
	tl_engine_analyze_with(engine, &src, &opt, &findings);
	tl_findings_release(&findings);
	tl_source_release(&src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_fuzz_init();
	TlBuf text[TL_FZ_FILES];
	for (int i = 0; i < TL_FZ_FILES; i++)
		tl_buf_init(&text[i]);
	tl_buf_add(&text[0], "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n");
	/* The loop every call of train.py lands in. */
	TlBuf loop;
	tl_buf_init(&loop);
	tl_buf_add(&loop, "\n\ndef train(loader):\n    model = Net()\n"
			  "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
			  "    crit = nn.CrossEntropyLoss()\n    hist = []\n"
			  "    for x, y in loader:\n        opt.zero_grad()\n"
			  "        loss = crit(model(x), y)\n        loss.backward()\n        opt.step()\n");
	size_t i = 0;
	unsigned ops = 0;
	while (i < size && ops++ < 256) {
		uint8_t op = data[i++];
		int file = op & 7, form = (op >> 3) & 15;
		uint8_t arg = i < size ? data[i] : 0;
		const char *mod = tl_fz_mods[arg % TL_FZ_COUNT(tl_fz_mods)];
		const char *name = tl_fz_names[(arg >> 3) % TL_FZ_COUNT(tl_fz_names)];
		TlBuf *t = &text[file];
		switch (form) {
		case 0: tl_buf_addf(t, "import %s\n", mod); i++; break;
		case 1: tl_buf_addf(t, "from %s import *\n", mod); i++; break;
		case 2: tl_buf_addf(t, "from %s import %s\n", mod, name); i++; break;
		case 3: tl_buf_addf(t, "from %s import %s as %s_\n", mod, name, name); i++; break;
		case 4:
			tl_buf_addf(t, "\n\ndef %s(logits, target=None):\n    return F.softmax(logits, dim=1)\n", name);
			i++;
			break;
		case 5:
			tl_buf_addf(t, "\n\nclass %s(nn.Module):\n    def forward(self, x):\n"
				       "        return F.cross_entropy(x, x)\n", name);
			i++;
			break;
		case 6: tl_buf_addf(&loop, "        hist.append(%s(model(x), y))\n", name); i++; break;
		case 7: tl_buf_addf(&loop, "        loss = %s.%s(loss)\n", name, name); i++; break;
		case 8: tl_buf_addf(t, "import %s as %s\n", mod[0] && mod[0] != '.' ? mod : "pkg", name); i++; break;
		case 9: tl_buf_addf(t, "%s = %s\n", name, name); i++; break;
		case 10: tl_buf_addf(t, "from %s import (%s,\n    %s)\n", mod, name, name); i++; break;
		case 11: tl_buf_addf(t, "__all__ = [\"%s\"]\n", name); i++; break;
		default: {
			/* Raw bytes, up to 64 of them. */
			size_t n = arg & 63;
			i++;
			if (n > size - i)
				n = size - i;
			tl_buf_addn(t, (const char *)data + i, n);
			tl_buf_addc(t, '\n');
			i += n;
			break;
		}
		}
	}
	tl_buf_addn(&text[0], loop.data, loop.len);
	tl_buf_release(&loop);

	char dir[] = "/tmp/tl-fuzz-project-XXXXXX";
	if (!mkdtemp(dir))
		abort();
	TlBuf marker;
	tl_buf_init(&marker);
	tl_buf_add(&marker, "[project]\nname = \"fuzz\"\n");
	tl_fz__write(dir, "pyproject.toml", &marker);
	tl_buf_release(&marker);
	for (int k = 0; k < TL_FZ_FILES; k++)
		tl_fz__write(dir, tl_fz_files[k], &text[k]);

	TlEngine engine;
	tl_engine_init(&engine, &tl_fuzz_rules, &tl_fuzz_all);
	TlProject *project = tl_project_new(NULL);
	tl_project_track(project); /* as the language server's */
	TlBuf path;
	tl_buf_init(&path);
	tl_buf_addf(&path, "%s/train.py", dir);
	tl_fz__analyze(&engine, project, path.data);
	for (int k = 1; k < TL_FZ_FILES; k++) {
		path.len = 0;
		tl_buf_addf(&path, "%s/%s", dir, tl_fz_files[k]);
		tl_fz__analyze(&engine, project, path.data);
	}
	/* The language server's way: an editor's text for pkg/a.py (train.py's
	 * text), train.py again, that text with a line more, train.py again,
	 * then the file's own text back, the project forgotten, and train.py
	 * once more. */
	path.len = 0;
	tl_buf_addf(&path, "%s/pkg/a.py", dir);
	tl_project_set_text(project, path.data, text[0].data, text[0].len, NULL);
	TlBuf train;
	tl_buf_init(&train);
	tl_buf_addf(&train, "%s/train.py", dir);
	tl_fz__analyze(&engine, project, train.data);
	/* The same text with a line more (its import lines unchanged): what
	 * read pkg/a.py is built again, the rest kept. */
	TlBuf more;
	tl_buf_init(&more);
	tl_buf_addn(&more, text[0].data, text[0].len);
	tl_buf_add(&more, "\nx = 1\n");
	TlStrArray affected;
	tl_array_init(&affected);
	tl_project_set_text(project, path.data, more.data, more.len, &affected);
	tl_str_array_release(&affected);
	tl_buf_release(&more);
	tl_fz__analyze(&engine, project, train.data);
	tl_project_set_text(project, path.data, NULL, 0, NULL);
	tl_project_forget(project);
	tl_fz__analyze(&engine, project, train.data);
	for (size_t k = 0; k < tl_project_module_count(project); k++)
		(void)tl_project_module_path(project, k);
	tl_buf_release(&train);
	tl_buf_release(&path);
	tl_project_free(project);
	tl_engine_release(&engine);
	nftw(dir, tl_fz__rm, 16, FTW_DEPTH | FTW_PHYS);
	for (int k = 0; k < TL_FZ_FILES; k++)
		tl_buf_release(&text[k]);
	return 0;
}
