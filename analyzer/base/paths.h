/* Path strings, handled lexically (no symbolic links are resolved, so the
 * results line up with the paths the user gave), except tl_path_real and
 * tl_path_repo_root. All results: caller frees. */
#ifndef TL_PATHS_H
#define TL_PATHS_H

/* `path` made absolute against the working directory, with "." and ".."
 * components and repeated slashes removed. */
char *tl_path_absolute(const char *path);
/* The absolute directory holding `path`, ending in '/'. */
char *tl_path_dirname_abs(const char *path);
/* `dir` with exactly one trailing '/'. */
char *tl_path_with_slash(const char *dir);
/* The parent of absolute directory `dir` (ending in '/'); "/" for "/". */
char *tl_path_parent(const char *dir);
/* The working directory, ending in '/'. */
char *tl_path_cwd(void);
/* `path` with symbolic links resolved (realpath), or, when it does not
 * exist, tl_path_absolute(path). */
char *tl_path_real(const char *path);
/* The root of the git work tree holding the working directory (the closest
 * directory above it with a `.git` entry), symbolic links resolved and
 * ending in '/'; the resolved working directory when there is none. */
char *tl_path_repo_root(void);

#endif
