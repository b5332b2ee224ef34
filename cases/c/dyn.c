/* dyn.c: Dyn, the host's view of a value (bridge.h): a tagged tree the typed host functions take and give. */
#include "bridge.h"

#include <stdlib.h>
#include <string.h>

void dyn_free(dyn *d)
{
	size_t i;

	switch (d->kind) {
	case DYN_STR:
		bb_free(d->u.str.p);
		break;
	case DYN_BYTES:
		bb_free(d->u.bytes.p);
		break;
	case DYN_ARR:
		for (i = 0; i < d->u.arr.len; i++)
			dyn_free(&d->u.arr.items[i]);
		bb_free(d->u.arr.items);
		break;
	case DYN_OBJ:
		for (i = 0; i < d->u.obj.len; i++) {
			bb_free(d->u.obj.members[i].key);
			dyn_free(&d->u.obj.members[i].value);
		}
		bb_free(d->u.obj.members);
		break;
	default:
		break;
	}
	d->kind = DYN_NULL;
}

char *dyn_str_new(dyn *d, size_t len)
{
	char *p = bb_malloc(len + 1);

	d->kind = DYN_NULL;
	if (!p)
		return NULL;
	p[len] = '\0';
	d->kind = DYN_STR;
	d->u.str.p = p;
	d->u.str.len = len;
	return p;
}

int dyn_str(dyn *d, const char *s, size_t len)
{
	char *p = dyn_str_new(d, len);

	if (!p)
		return -1;
	memcpy(p, s, len);
	return 0;
}

int dyn_arr(dyn *d, size_t len)
{
	d->kind = DYN_NULL;
	d->u.arr.items = bb_calloc(len ? len : 1, sizeof(dyn)); /* calloc'd zeros are DYN_NULL */
	if (!d->u.arr.items)
		return -1;
	d->kind = DYN_ARR;
	d->u.arr.len = len;
	return 0;
}

/* dyn_obj's members are set with dyn_key(). */
int dyn_obj(dyn *d, size_t len)
{
	d->kind = DYN_NULL;
	d->u.obj.members = bb_calloc(len ? len : 1, sizeof(dyn_member));
	if (!d->u.obj.members)
		return -1;
	d->kind = DYN_OBJ;
	d->u.obj.len = len;
	return 0;
}

int dyn_copy(dyn *dst, const dyn *src)
{
	size_t i, n;

	*dst = *src;
	switch (src->kind) {
	case DYN_STR:
		return dyn_str(dst, src->u.str.p, src->u.str.len);
	case DYN_BYTES:
		dst->u.bytes.p = bb_malloc(src->u.bytes.len ? src->u.bytes.len : 1);
		if (!dst->u.bytes.p) {
			dst->kind = DYN_NULL;
			return -1;
		}
		memcpy(dst->u.bytes.p, src->u.bytes.p, src->u.bytes.len);
		return 0;
	case DYN_ARR:
		n = src->u.arr.len;
		if (dyn_arr(dst, n) < 0)
			return -1;
		for (i = 0; i < n; i++)
			if (dyn_copy(&dst->u.arr.items[i], &src->u.arr.items[i]) < 0)
				goto fail;
		return 0;
	case DYN_OBJ:
		n = src->u.obj.len;
		if (dyn_obj(dst, n) < 0)
			return -1;
		for (i = 0; i < n; i++) {
			const dyn_member *m = &src->u.obj.members[i];
			dyn_member *d = &dst->u.obj.members[i];
			if (!(d->key = bb_malloc(m->key_len + 1)))
				goto fail;
			memcpy(d->key, m->key, m->key_len + 1);
			d->key_len = m->key_len;
			if (dyn_copy(&d->value, &m->value) < 0)
				goto fail;
		}
		return 0;
	default:
		return 0;
	}
fail:
	dyn_free(dst);
	return -1;
}

/* member copies key into member i of obj and returns its value (null) for the caller to set, or NULL when out
 * of memory. Members are filled in place so that dyn_free(obj) frees whatever was made when a later step fails. */
dyn *dyn_key(dyn *obj, size_t i, const char *key)
{
	dyn_member *m = &obj->u.obj.members[i];

	m->key_len = strlen(key);
	m->key = bb_malloc(m->key_len + 1);
	if (!m->key)
		return NULL;
	memcpy(m->key, key, m->key_len + 1);
	return &m->value;
}

int dyn_set_num(dyn *obj, size_t i, const char *key, double v)
{
	dyn *m = dyn_key(obj, i, key);

	if (!m)
		return -1;
	*m = dyn_num(v);
	return 0;
}

/* dyn_get finds a member of an object, or NULL. */
const dyn *dyn_get(const dyn *obj, const char *key)
{
	size_t i, len = strlen(key);

	if (obj->kind != DYN_OBJ)
		return NULL;
	for (i = 0; i < obj->u.obj.len; i++)
		if (obj->u.obj.members[i].key_len == len && memcmp(obj->u.obj.members[i].key, key, len) == 0)
			return &obj->u.obj.members[i].value;
	return NULL;
}
