// sw.js, served from your site's origin and registered by its page (a browser service worker,
// so not run by the docs test): shows each push and opens the signed link on a click.
self.addEventListener('push', (event) => {
  const { title, body, url, tag } = event.data.json(); // what createWebPushChannel sent
  // Text, never HTML: the system shows body as it is.
  event.waitUntil(self.registration.showNotification(title, { body, tag, data: { url } }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const { url } = event.notification.data ?? {};
  if (typeof url === 'string') event.waitUntil(self.clients.openWindow(url));
});
