/*
 * The health probe every Swarm task of a Slipway service runs (its HEALTHCHECK): images need not have curl or
 * wget. Static, small (musl), no allocation beyond the stack.
 *
 *   slipway-probe http PORT PATH RANGES TIMEOUT   GET http://127.0.0.1:PORT/PATH; 0 when the status is in RANGES
 *   slipway-probe tcp PORT TIMEOUT                 0 when 127.0.0.1:PORT accepts a connection
 *
 * RANGES: "200-399", "200", "200,204,300-399". What went wrong goes to stdout: Docker keeps it in the task's health log.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int connect_local(int port, int timeout_s) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  struct timeval tv = {timeout_s, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  struct sockaddr_in addr = {0};
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    printf("connection refused on port %d: %s\n", port, strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

static int in_ranges(int status, const char *ranges) {
  const char *p = ranges;
  while (*p) {
    char *end;
    long low = strtol(p, &end, 10), high = low;
    if (end == p) return 0;
    if (*end == '-') high = strtol(end + 1, &end, 10);
    if (status >= low && status <= high) return 1;
    p = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return 0;
  }
  return 0;
}

static int probe_http(int port, const char *path, const char *ranges, int timeout_s) {
  int fd = connect_local(port, timeout_s);
  if (fd < 0) return 1;
  char request[2300];
  int n = snprintf(request, sizeof request, "GET %s HTTP/1.0\r\nHost: 127.0.0.1:%d\r\nUser-Agent: slipway-probe\r\nConnection: close\r\n\r\n", path, port);
  if (n <= 0 || n >= (int)sizeof request || write(fd, request, (size_t)n) != n) {
    printf("could not send the request\n");
    close(fd);
    return 1;
  }
  char answer[64] = {0};
  ssize_t got = 0, r;
  while (got < (ssize_t)sizeof answer - 1 && (r = read(fd, answer + got, sizeof answer - 1 - (size_t)got)) > 0) got += r;
  /* The rest of the answer is read too (up to 1 MiB): closing with unread data sends a reset, and the app
     would log a broken connection at every check. */
  char rest[4096];
  size_t drained = 0;
  while (drained < (1u << 20) && (r = read(fd, rest, sizeof rest)) > 0) drained += (size_t)r;
  close(fd);
  int status;
  if (got < 12 || sscanf(answer, "HTTP/%*d.%*d %d", &status) != 1) {
    printf("no HTTP answer from port %d%s\n", port, got == 0 ? " (timed out or closed)" : "");
    return 1;
  }
  if (!in_ranges(status, ranges)) {
    printf("HTTP %d from %s\n", status, path);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 6 && strcmp(argv[1], "http") == 0) return probe_http(atoi(argv[2]), argv[3], argv[4], atoi(argv[5]));
  if (argc == 4 && strcmp(argv[1], "tcp") == 0) {
    int fd = connect_local(atoi(argv[2]), atoi(argv[3]));
    if (fd < 0) return 1;
    close(fd);
    return 0;
  }
  printf("usage: slipway-probe http PORT PATH RANGES TIMEOUT | tcp PORT TIMEOUT\n");
  return 2;
}
