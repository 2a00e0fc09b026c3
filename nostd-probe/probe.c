/* Links the no_std static library into a C program and checks that it works. */
#include <stdio.h>
#include <string.h>

int probe_v1_task_state(const unsigned char *ptr, size_t len);
int probe_v03_task_state(const unsigned char *ptr, size_t len);

int main(void) {
    const char *v1 = "{\"id\":\"t1\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}";
    const char *v03 = "{\"kind\":\"task\",\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"input-required\"}}";
    const char *bad = "{\"id\":\"t1\",\"status\":{\"state\":\"completed\"}}";
    int a = probe_v1_task_state((const unsigned char *)v1, strlen(v1));
    int b = probe_v03_task_state((const unsigned char *)v03, strlen(v03));
    int c = probe_v1_task_state((const unsigned char *)bad, strlen(bad));
    if (a != 3 || b != 6 || c != -1) {
        fprintf(stderr, "no_std probe: unexpected results %d %d %d\n", a, b, c);
        return 1;
    }
    printf("no_std probe: ok (v1 completed=%d, v0.3 input-required=%d, v0.3 state refused by v1)\n", a, b);
    return 0;
}
